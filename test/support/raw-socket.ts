import net from 'node:net';

/** What the daemon did with raw bytes written on a connection of their own. */
export interface RawExchange {
  replies: unknown[];
  closed: boolean;
}

/**
 * Writes `bytes` on a new connection (ending it afterwards when `endAfter`) and collects the frames that
 * come back until the daemon closes the connection, `expectReplies` frames arrived, or `timeoutMs` passed.
 */
export function exchange(
  socketPath: string,
  bytes: Buffer,
  {
    endAfter = false,
    expectReplies = 0,
    timeoutMs = 10_000,
  }: { endAfter?: boolean; expectReplies?: number; timeoutMs?: number } = {},
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    const replies: unknown[] = [];
    let pending = Buffer.alloc(0);
    const finish = (closed: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ replies, closed });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (let end = pending.indexOf(0x0c); end !== -1; end = pending.indexOf(0x0c)) {
        replies.push(JSON.parse(pending.subarray(0, end).toString('utf8')));
        pending = pending.subarray(end + 1);
      }
      if (expectReplies > 0 && replies.length >= expectReplies) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined); // the daemon may cut an oversized write short: EPIPE
    socket.on('connect', () => {
      socket.write(bytes);
      if (endAfter) socket.end();
    });
  });
}

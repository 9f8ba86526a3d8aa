import net from 'node:net';
import { encodeFrame, REQUEST_LIMITS } from '../../src/ipc/frame-codec.js';

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

/**
 * Sends request messages on one connection one after another, each once the previous one is answered (as
 * fast as the daemon answers: far faster than the CLI starts), and returns the replies' messages.
 */
export function requestsInTurn(
  socketPath: string,
  messages: ReadonlyArray<Record<string, unknown>>,
  timeoutMs = 30_000,
): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    const replies: unknown[] = [];
    let pending = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${replies.length} of ${messages.length} replies within ${timeoutMs} ms`));
    }, timeoutMs);
    const sendNext = (): void => {
      const next = messages[replies.length];
      if (next !== undefined) {
        socket.write(encodeFrame(next, REQUEST_LIMITS));
        return;
      }
      clearTimeout(timer);
      socket.destroy();
      resolve(replies);
    };
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (let end = pending.indexOf(0x0c); end !== -1; end = pending.indexOf(0x0c)) {
        replies.push((JSON.parse(pending.subarray(0, end).toString('utf8')) as { data: unknown }).data);
        pending = pending.subarray(end + 1);
        sendNext();
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('connect', sendNext);
  });
}

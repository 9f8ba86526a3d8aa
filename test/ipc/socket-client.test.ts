import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrame, REPLY_LIMITS } from '../../src/ipc/frame-codec.js';
import { connect } from '../../src/ipc/socket-client.js';
import { serve } from '../../src/ipc/transport.js';
import { makeHome, removeHome, waitFor } from '../support/sched-harness.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function socketPathInTempHome(): string {
  const home = makeHome('sched-socket-client-');
  cleanups.push(() => removeHome(home));
  return path.join(home, 'sched.sock');
}

/** A peer that writes these raw bytes to whoever connects, so a test controls exactly what the client reads. */
async function rawPeer(bytes: Buffer[]): Promise<string> {
  const socketPath = socketPathInTempHome();
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    for (const chunk of bytes) socket.write(chunk);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return socketPath;
}

describe('the client end of the socket', () => {
  it('when nothing listens on the socket, then connecting fails at once with the socket error', async () => {
    await expect(connect(socketPathInTempHome())).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('when the daemon sends a frame in pieces and two frames in one piece, then each message arrives whole', async () => {
    const frames = Buffer.concat([
      encodeFrame({ a: 1 }, REPLY_LIMITS),
      encodeFrame({ b: 'ü' }, REPLY_LIMITS),
    ]);
    const socketPath = await rawPeer([frames.subarray(0, 5), frames.subarray(5)]);
    const client = await connect(socketPath);
    cleanups.push(() => client.close());
    const messages: unknown[] = [];
    client.onMessage((message) => messages.push(message));

    await waitFor(async () => messages.length === 2 || undefined, 10_000);
    expect(messages).toEqual([{ a: 1 }, { b: 'ü' }]);
  });

  it('when the daemon sends what cannot be read, then the connection counts as closed', async () => {
    const socketPath = await rawPeer([Buffer.from('not json\f')]);
    const client = await connect(socketPath);
    cleanups.push(() => client.close());
    let closed = 0;
    client.onClose(() => (closed += 1));

    await waitFor(async () => closed === 1 || undefined, 10_000);
  });

  it('when the client closes its connection, then the daemon sees it close and the client is not told', async () => {
    const socketPath = socketPathInTempHome();
    let closedOnDaemonSide = 0;
    const listening = await serve(socketPath, {
      message: (_message, connection) => connection.onClose(() => (closedOnDaemonSide += 1)),
      refused: () => undefined,
      fault: () => undefined,
    });
    cleanups.push(() => listening.close());
    const client = await connect(socketPath);
    let closedOnClientSide = 0;
    client.onClose(() => (closedOnClientSide += 1));
    client.send({ hello: true });

    client.close();

    await waitFor(async () => closedOnDaemonSide === 1 || undefined, 10_000);
    expect(closedOnClientSide).toBe(0);
  });
});

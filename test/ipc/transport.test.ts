import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/ipc/socket-client.js';
import { serve, type ServeHandlers, type ServerConnection } from '../../src/ipc/transport.js';
import { makeHome, removeHome, waitFor } from '../support/sched-harness.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(handlers: Partial<ServeHandlers>): Promise<string> {
  const home = makeHome('sched-transport-');
  cleanups.push(() => removeHome(home));
  const socketPath = path.join(home, 'sched.sock');
  const listening = await serve(socketPath, {
    message: () => undefined,
    refused: () => undefined,
    fault: () => undefined,
    ...handlers,
  });
  cleanups.push(() => listening.close());
  return socketPath;
}

describe('the socket transport', () => {
  it('when a peer closes its connection, then the listeners of that connection run', async () => {
    let received = 0;
    let closed = 0;
    const socketPath = await server({
      message: (_message, connection) => {
        received += 1;
        connection.onClose(() => (closed += 1));
      },
    });
    const client = await connect(socketPath);
    client.send({ hello: 1 });
    await waitFor(async () => received === 1, 10_000);

    client.close();

    await waitFor(async () => closed === 1, 10_000);
  });

  it('when handling a message throws, then that connection is closed, the fault is reported and others are still served', async () => {
    const faults: Error[] = [];
    const answered: ServerConnection[] = [];
    const socketPath = await server({
      message: (message, connection) => {
        if ((message as { boom?: boolean }).boom) throw new Error('handler bug');
        answered.push(connection);
        connection.send({ echo: message });
      },
      fault: (error) => faults.push(error),
    });
    const healthy = await connect(socketPath);
    const replies: unknown[] = [];
    healthy.onMessage((message) => replies.push(message));

    const faulty = net.connect(socketPath);
    faulty.on('error', () => undefined);
    const faultyClosed = new Promise((resolve) => faulty.on('close', resolve));
    faulty.write('{"type":"sched","data":{"boom":true}}\f');
    await faultyClosed;
    healthy.send({ still: 'here' });

    await waitFor(async () => replies.length === 1, 10_000);
    expect(faults.map((error) => error.message)).toEqual(['handler bug']);
    expect(replies).toEqual([{ echo: { still: 'here' } }]);
    healthy.close();
  });
});

import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nextMessage } from './create-clients.js';
import { makeTempDir, removeTempDir, stopChild, trackChild } from './processes.js';

const SERVER_SCRIPT = fileURLToPath(new URL('./socket-floor-server.js', import.meta.url));

/**
 * The socket's floor in a process of its own (lib/socket-floor-server.js), answering every request with
 * `result` and doing nothing else; create clients reach it as they reach a daemon, by `socketPath`.
 */
export async function startSocketFloor(result) {
  const dir = makeTempDir('socket-floor');
  const socketPath = path.join(dir, 'floor.sock');
  const server = trackChild(fork(SERVER_SCRIPT, [socketPath, JSON.stringify(result)]));
  await nextMessage(server, 'ready');
  return {
    pid: server.pid,
    socketPath,
    async dispose() {
      server.send({ type: 'exit' });
      await stopChild(server, 5_000);
      removeTempDir(dir);
    },
  };
}

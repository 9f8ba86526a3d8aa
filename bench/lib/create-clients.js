import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { stopChild, trackChild } from './processes.js';

const CLIENT_SCRIPT = fileURLToPath(new URL('./create-client.js', import.meta.url));

/**
 * `clients` create clients in processes of their own (lib/create-client.js), each with its own connection
 * to the daemon and `warmup` sequential creates done. `run` has each create its share of `count` jobs with
 * `depth` in flight; the wall time spans all of them. `secrets`: whether the jobs carry values sealed at
 * rest (absent: as BENCH_SECRETS says).
 */
export async function startCreateClients(daemon, { clients, warmup, secrets }) {
  const workers = await Promise.all(
    Array.from({ length: clients }, async () => {
      const args = [daemon.socketPath, String(warmup), secrets === undefined ? 'default' : String(secrets)];
      const worker = trackChild(fork(CLIENT_SCRIPT, args));
      await nextMessage(worker, 'ready');
      return worker;
    }),
  );
  return {
    pids: workers.map((worker) => worker.pid),
    async run({ count, depth, prefix }) {
      const started = performance.now();
      const results = await Promise.all(
        workers.map((worker, w) => {
          const reply = nextMessage(worker, 'done');
          const share = Math.ceil(count / clients);
          worker.send({ type: 'run', count: share, depth, prefix: `${prefix}-w${w}`, secrets });
          return reply;
        }),
      );
      return {
        latenciesMs: results.flatMap((result) => result.latenciesMs),
        elapsedMs: performance.now() - started,
      };
    },
    async close() {
      for (const worker of workers) worker.send({ type: 'exit' });
      await Promise.all(workers.map((worker) => stopChild(worker, 5_000)));
    },
  };
}

/** The next message of `type` from a forked client; rejects if the client exits first. */
export function nextMessage(worker, type) {
  return new Promise((resolve, reject) => {
    const onMessage = (message) => {
      if (message.type !== type) return;
      worker.off('message', onMessage);
      resolve(message);
    };
    worker.on('message', onMessage);
    worker.once('exit', (code) => reject(new Error(`a client process exited with code ${code}`)));
  });
}

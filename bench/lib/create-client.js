// A create client in its own process (forked by creates.js), so 8 clients get their own event loops
// instead of sharing the benchmark's one thread. Protocol over the fork channel:
//   parent → { type: 'run', count, depth, prefix, secrets }      child → { type: 'done', latenciesMs, elapsedMs }
import { DaemonClient } from '../../dist/client/daemon-client.js';
import { createJobs } from './create-jobs.js';

const [socketPath, warmup, kind] = process.argv.slice(2);
const client = await DaemonClient.connect(socketPath);
const secrets = kind === 'default' ? undefined : kind === 'true';
await createJobs(client, { count: Number(warmup), depth: 1, prefix: `warm-${process.pid}`, secrets });

process.on('message', async (message) => {
  if (message.type === 'run') {
    const { latenciesMs, elapsedMs } = await createJobs(client, message);
    process.send({ type: 'done', latenciesMs: Array.from(latenciesMs), elapsedMs });
  } else if (message.type === 'exit') {
    client.close();
    process.disconnect();
  }
});
process.send({ type: 'ready' });

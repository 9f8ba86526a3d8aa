// A client of one of the PostgreSQL job queues sched is compared with (creates-vs-peers.js), in its own
// process as lib/create-client.js is for sched, so eight clients get eight event loops. Each enqueues one job
// per request with the queue's own API:
//   pg-boss        boss.send(queue, data)              (a PgBoss instance of its own, pool of 2)
//   graphile-worker workerUtils.addJob(task, payload)  (worker utils of its own, pool of 2)
// Protocol over the fork channel, as create-client.js:
//   parent → { type: 'run', count, depth, prefix }      child → { type: 'done', latenciesMs, elapsedMs }
import { pipelined } from './pipeline.js';

const [kind, connectionString, queue, warmup] = process.argv.slice(2);
const POOL = 2;

async function openQueue() {
  if (kind === 'pg-boss') {
    const { default: PgBoss } = await import('pg-boss');
    const boss = new PgBoss({
      connectionString,
      max: POOL,
      supervise: false,
      schedule: false,
      migrate: false,
    });
    boss.on('error', (error) => console.error(`pg-boss client: ${error.message}`));
    await boss.start();
    return { add: (data) => boss.send(queue, data), close: () => boss.stop({ graceful: false, wait: true }) };
  }
  if (kind === 'graphile-worker') {
    const { makeWorkerUtils } = await import('graphile-worker');
    const utils = await makeWorkerUtils({ connectionString, maxPoolSize: POOL });
    return { add: (data) => utils.addJob(queue, data), close: () => utils.release() };
  }
  throw new Error(`queue-client: unknown queue "${kind}" (pg-boss or graphile-worker)`);
}

const client = await openQueue();
const enqueue = ({ count, depth, prefix }) =>
  pipelined(count, depth, (i) => client.add({ name: `${prefix}-${i}`, argv: ['true'] }));
await enqueue({ count: Number(warmup), depth: 1, prefix: `warm-${process.pid}` });

process.on('message', async (message) => {
  if (message.type === 'run') {
    const { latenciesMs, elapsedMs } = await enqueue(message);
    process.send({ type: 'done', latenciesMs: Array.from(latenciesMs), elapsedMs });
  } else if (message.type === 'exit') {
    await client.close();
    process.disconnect();
  }
});
process.send({ type: 'ready' });

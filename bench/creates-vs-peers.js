// 1b. Durable creates side by side with the PostgreSQL job queues (issue #17): 8 client processes × 1 request
//     in flight, each request one job made durable before it is answered, on one machine in one run:
//     - sched: `job.add` over the socket to a daemon on SQLite (every commit synced), as creates.js;
//     - pg-boss 10 (`send`) and graphile-worker 0.16 (`addJob`), the newest releases that run on Node 20,
//       on one PostgreSQL server with its own defaults (fsync, synchronous_commit and full-page writes on),
//       each on a database of its own with its schema installed before the clock starts.
//     Each system gets the same warm-up per client, then BENCH_REPS timed rounds; the figure is the median
//     round's jobs/s, with the CPU of the daemon or of PostgreSQL (all its processes) per job. The goal is
//     sched at twice the fastest queue: a small group commit must not cost far more than a large one.
// Knobs: BENCH_PEERS_CREATES (jobs per round, 6000; quick 1000), BENCH_PEERS_CLIENTS (8).
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { knob, REPS } from './lib/config.js';
import { nextMessage, startCreateClients } from './lib/create-clients.js';
import { startDaemon } from './lib/daemon.js';
import { startPostgres } from './lib/postgres-server.js';
import { cpuSeconds } from './lib/process-cpu.js';
import { stopChild, trackChild } from './lib/processes.js';
import { emitResult, progress } from './lib/report.js';
import { medianOfReps, summarize } from './lib/stats.js';

const CREATES = knob('PEERS_CREATES', 6_000, 1_000);
const CLIENTS = knob('PEERS_CLIENTS', 8);
const DEPTH = 1;
const WARMUP = 50;
const QUEUE = 'bench';
const QUEUE_CLIENT = fileURLToPath(new URL('./lib/queue-client.js', import.meta.url));

/** BENCH_REPS rounds of `run()`, each timed with the CPU of `cpuOf()` (seconds so far) over it. */
async function rounds(run, cpuOf) {
  const reps = [];
  for (let rep = 0; rep < REPS; rep++) {
    const cpuBefore = cpuOf();
    const { latenciesMs, elapsedMs } = await run(`r${rep}`);
    const latency = summarize(latenciesMs);
    reps.push({
      creates: latency.n,
      jobsPerSec: latency.n / (elapsedMs / 1000),
      p50: latency.p50,
      p99: latency.p99,
      max: latency.max,
      cpuUsPerJob: ((cpuOf() - cpuBefore) * 1e6) / latency.n,
    });
  }
  return medianOfReps(reps);
}

async function measureSched() {
  const daemon = await startDaemon({ label: 'peers-sched' });
  try {
    const clients = await startCreateClients(daemon, { clients: CLIENTS, warmup: WARMUP });
    try {
      const run = (prefix) => clients.run({ count: CREATES, depth: DEPTH, prefix });
      return await rounds(run, () => cpuSeconds(daemon.pid));
    } finally {
      await clients.close();
    }
  } finally {
    await daemon.dispose();
  }
}

async function installQueue(kind, url) {
  if (kind === 'pg-boss') {
    const { default: PgBoss } = await import('pg-boss');
    const boss = new PgBoss({ connectionString: url, max: 2, supervise: false, schedule: false });
    await boss.start();
    await boss.createQueue(QUEUE);
    await boss.stop({ graceful: false, wait: true });
  } else {
    const { makeWorkerUtils } = await import('graphile-worker');
    const utils = await makeWorkerUtils({ connectionString: url, maxPoolSize: 2 });
    await utils.migrate();
    await utils.release();
  }
}

async function measureQueue(postgres, kind) {
  const url = await postgres.createDatabase(kind.replace('-', '_'));
  await installQueue(kind, url);
  const workers = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const worker = trackChild(fork(QUEUE_CLIENT, [kind, url, QUEUE, String(WARMUP)]));
      await nextMessage(worker, 'ready');
      return worker;
    }),
  );
  try {
    const stored = await countJobs(kind, url);
    if (stored !== CLIENTS * WARMUP)
      throw new Error(`${kind}: ${stored} jobs stored after the warm-up, expected ${CLIENTS * WARMUP}`);
    const figures = await rounds(async (prefix) => {
      const started = performance.now();
      const results = await Promise.all(
        workers.map((worker, w) => {
          const done = nextMessage(worker, 'done');
          worker.send({
            type: 'run',
            count: Math.ceil(CREATES / CLIENTS),
            depth: DEPTH,
            prefix: `${prefix}-w${w}`,
          });
          return done;
        }),
      );
      return {
        latenciesMs: results.flatMap((result) => result.latenciesMs),
        elapsedMs: performance.now() - started,
      };
    }, postgres.cpuSeconds);
    // Every job acknowledged is in the database: what was timed was really stored.
    const expected = CLIENTS * WARMUP + REPS * CLIENTS * Math.ceil(CREATES / CLIENTS);
    const after = await countJobs(kind, url);
    if (after !== expected) throw new Error(`${kind}: ${after} jobs stored, expected ${expected}`);
    return figures;
  } finally {
    for (const worker of workers) worker.send({ type: 'exit' });
    await Promise.all(workers.map((worker) => stopChild(worker, 10_000)));
  }
}

async function countJobs(kind, url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const table = kind === 'pg-boss' ? 'pgboss.job' : 'graphile_worker._private_jobs';
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${table}`);
    return rows[0].n;
  } finally {
    await client.end();
  }
}

progress(
  `creates vs the PostgreSQL queues: ${CLIENTS} clients × ${DEPTH} in flight, ${CREATES} jobs a round`,
);
const results = { sched: await measureSched() };
const postgres = await startPostgres('peers-pg', { durable: true });
try {
  for (const kind of ['pg-boss', 'graphile-worker']) {
    progress(`creates vs the PostgreSQL queues: ${kind}`);
    results[kind] = await measureQueue(postgres, kind);
  }
} finally {
  await postgres.stop();
}

const fastestPeer = Math.max(results['pg-boss'].jobsPerSec, results['graphile-worker'].jobsPerSec);
const ratio = results.sched.jobsPerSec / fastestPeer;
const rows = Object.entries(results).map(([system, median]) => ({
  benchmark: 'creates vs peers',
  scenario: `${system}, ${CLIENTS} clients × ${DEPTH} in flight`,
  n: median.creates,
  rate: median.jobsPerSec,
  rateUnit: 'jobs/s',
  p50: median.p50,
  p99: median.p99,
  max: median.max,
  notes:
    `median of ${REPS}; ${system === 'sched' ? 'daemon' : 'PostgreSQL'} CPU ${Math.round(median.cpuUsPerJob)} µs a job` +
    (system === 'sched' ? `; ${ratio.toFixed(2)}× the fastest queue` : ''),
  goals: system === 'sched' ? { 'creates-vs-peers': ratio } : undefined,
}));
emitResult({
  benchmark: 'durable creates beside the PostgreSQL job queues',
  rows,
  figures: { ...results, ratio },
});

// 2. Get latency at the socket: `job.get` by name (upcoming: 0), one request at a time from one client,
//    after N jobs exist. The jobs are written straight into the store before the daemon starts.
// Knobs: BENCH_GET_JOBS (store size, default 10000 and 100000 — a comma list), BENCH_GETS (per rep).
import { performance } from 'node:perf_hooks';
import { QUICK, REPS, knob } from './lib/config.js';
import { startDaemon } from './lib/daemon.js';
import { pipelined } from './lib/pipeline.js';
import { makeTempDir } from './lib/processes.js';
import { emitResult, progress } from './lib/report.js';
import { medianOfReps, summarize } from './lib/stats.js';
import { farFutureJobs, writeJobs } from './lib/store-fill.js';

const STORE_SIZES = (process.env.BENCH_GET_JOBS ?? (QUICK ? '10000' : '10000,100000')).split(',').map(Number);
const GETS = knob('GETS', 3_000, 500);
const WARMUP = 300;

/** Deterministic names to look up, spread over the whole store (a small LCG, so runs are comparable). */
function lookupOrder(count, storeSize) {
  let seed = 12345;
  return Array.from({ length: count }, () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return `job-${seed % storeSize}`;
  });
}

const rows = [];
const figures = {};
for (const storeSize of STORE_SIZES) {
  progress(`get latency: filling a store with ${storeSize} jobs`);
  const home = makeTempDir('get');
  const fill = await writeJobs(`${home}/sched.db`, farFutureJobs(storeSize, 'job'));
  const daemon = await startDaemon({ label: 'get', home });
  try {
    const client = await daemon.connect();
    const names = lookupOrder(GETS, storeSize);
    const get = (i) => client.call('job.get', { ref: names[i % names.length], upcoming: 0 });
    await pipelined(WARMUP, 1, get);
    const reps = [];
    for (let rep = 0; rep < REPS; rep++) {
      const started = performance.now();
      const { latenciesMs } = await pipelined(GETS, 1, get);
      const latency = summarize(latenciesMs);
      const elapsedMs = performance.now() - started;
      reps.push({
        gets: latency.n,
        perSec: latency.n / (elapsedMs / 1000),
        p50: latency.p50,
        p99: latency.p99,
        max: latency.max,
      });
    }
    client.close();
    const median = medianOfReps(reps);
    figures[`${storeSize} jobs`] = { median, reps, fillMs: fill.writeMs, daemonStartMs: daemon.startMs };
    rows.push({
      benchmark: 'get latency (job.get)',
      scenario: `by name, sequential, ${storeSize.toLocaleString('en-US')} jobs stored`,
      n: median.gets,
      rate: median.perSec,
      rateUnit: 'req/s',
      p50: median.p50,
      p99: median.p99,
      max: median.max,
      notes: `median of ${reps.length}`,
      goals: { 'get-p50': median.p50, 'get-p99': median.p99 },
    });
  } finally {
    await daemon.dispose();
  }
}
emitResult({ benchmark: 'get latency (job.get by name) at the socket', rows, figures });

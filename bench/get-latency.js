// 2. Get latency at the socket: `job.get` by name (upcoming: 0), one request at a time from one client,
//    after N jobs exist. The jobs are written straight into the store before the daemon starts.
//    In the same store, two reads that grow with it: the overdue watch's (every live job with a dead-man's
//    switch; 10 more jobs that have one), timed in this process before the daemon opens the file, and
//    `daemon.status` (which counts the active and the paused jobs) at the socket, one at a time.
//    And `job.list` filtered by state and by owner, where the filter matches 20 jobs (paused ones; done ones;
//    another owner's: set in the file before the daemon opens it) or nearly all, following the cursor up to
//    LIST_PAGES pages of 50 and starting over, one call at a time.
// Knobs: BENCH_GET_JOBS (store size, default 10000 and 100000 — a comma list), BENCH_GETS (per rep),
//    BENCH_STATUS_CALLS, BENCH_OVERDUE_READS, BENCH_LIST_CALLS (per listing).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { QUICK, REPS, knob } from './lib/config.js';
import { startDaemon } from './lib/daemon.js';
import { pipelined } from './lib/pipeline.js';
import { makeTempDir } from './lib/processes.js';
import { emitResult, progress } from './lib/report.js';
import { medianOfReps, summarize } from './lib/stats.js';
import { atJob, farFutureJobs, writeJobs } from './lib/store-fill.js';
import { jobsExpectingSuccess, timeStoreRead } from './lib/store-reads.js';

const STORE_SIZES = (process.env.BENCH_GET_JOBS ?? (QUICK ? '10000' : '10000,100000')).split(',').map(Number);
const GETS = knob('GETS', 3_000, 500);
const WARMUP = 300;
const STATUS_CALLS = knob('STATUS_CALLS', 200, 50);
const OVERDUE_READS = knob('OVERDUE_READS', 20, 5);
const WATCHED_JOBS = 10;
const LIST_CALLS = knob('LIST_CALLS', 200, 50);
const LIST_PAGES = 20;
const FEW_JOBS = 20;
const OTHER_OWNER = 'list-bench-other';

/** The listings timed, each matching FEW_JOBS jobs or nearly all of them. */
const LISTINGS = [
  ['state, 20 match', 'paused', { states: ['paused'] }],
  ['state, nearly all match', 'active', { states: ['active'] }],
  ['state, 20 match', 'done', { states: ['done'] }],
  ['owner, 20 match', 'another owner', { owner: OTHER_OWNER }],
  ['owner, nearly all match', 'the bench user', { owner: os.userInfo().username }],
];

/**
 * Paused jobs, one-shot jobs that have fired (done) and another owner's jobs, written as the store would have
 * them, before the daemon starts.
 */
function setFewJobs(databasePath) {
  const db = new Database(databasePath);
  try {
    db.prepare(`UPDATE jobs SET state = 'paused', next_run_at = NULL WHERE name LIKE 'paused-%'`).run();
    db.prepare(`UPDATE jobs SET next_run_at = NULL WHERE name LIKE 'done-%'`).run();
    db.prepare(`UPDATE jobs SET owner = ? WHERE name LIKE 'other-%'`).run(OTHER_OWNER);
  } finally {
    db.close();
  }
}

/** `job.list` calls one after another, each continuing the previous page up to LIST_PAGES, then starting over. */
async function timeListing(client, filter) {
  let cursor;
  let pages = 0;
  const list = async () => {
    const page = await client.call('job.list', { ...filter, limit: 50, cursor });
    pages = page.nextCursor === null || pages + 1 === LIST_PAGES ? 0 : pages + 1;
    cursor = pages === 0 ? undefined : page.nextCursor;
  };
  await pipelined(5, 1, list);
  const { latenciesMs } = await pipelined(LIST_CALLS, 1, list);
  return summarize(latenciesMs);
}

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
  const jobs = [
    ...farFutureJobs(storeSize, 'job'),
    ...farFutureJobs(WATCHED_JOBS, 'watched', { expectSuccessEvery: '1h' }),
    ...farFutureJobs(FEW_JOBS, 'paused'),
    ...farFutureJobs(FEW_JOBS, 'other'),
    ...Array.from({ length: FEW_JOBS }, (_, index) => atJob(`done-${index}`, Date.now() + 86_400_000)),
  ];
  const fill = await writeJobs(`${home}/sched.db`, jobs);
  setFewJobs(`${home}/sched.db`);
  const overdue = await timeStoreRead(`${home}/sched.db`, OVERDUE_READS, jobsExpectingSuccess);
  if (overdue.found !== WATCHED_JOBS) throw new Error(`the overdue read found ${overdue.found} jobs`);
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
    const statusCalls = await pipelined(STATUS_CALLS, 1, () => client.call('daemon.status', {}));
    const status = summarize(statusCalls.latenciesMs);
    const listings = [];
    for (const [scenario, who, filter] of LISTINGS)
      listings.push({ scenario, who, latency: await timeListing(client, filter) });
    client.close();
    const median = medianOfReps(reps);
    figures[`${storeSize} jobs`] = {
      median,
      reps,
      fillMs: fill.writeMs,
      daemonStartMs: daemon.startMs,
      overdueRead: overdue.latency,
      status,
      listings: Object.fromEntries(listings.map(({ scenario, latency }) => [scenario, latency])),
    };
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
    rows.push(storeReadRow('daemon.status', 'counts active and paused jobs', storeSize, status));
    rows.push(
      storeReadRow('overdue watch read', 'in-process, 10 jobs with a switch', storeSize, overdue.latency),
    );
    for (const { scenario, who, latency } of listings)
      rows.push(storeReadRow('job.list', `by ${scenario} (${who}), pages of 50`, storeSize, latency));
  } finally {
    await daemon.dispose();
  }
}
emitResult({ benchmark: 'get latency (job.get by name) at the socket', rows, figures });

function storeReadRow(benchmark, what, storeSize, latency) {
  return {
    benchmark,
    scenario: `${benchmark}: ${what}, sequential, ${storeSize.toLocaleString('en-US')} jobs stored`,
    n: latency.n,
    p50: latency.p50,
    p99: latency.p99,
    max: latency.max,
  };
}

// A burst (issue #17): N `at` jobs due at one and the same instant, each calling a loopback HTTP
//     endpoint in this process, on one daemon on a SQLite store. After the instant the daemon is stopped
//     and its runs are read from its database: how long after the instant each run was started
//     (run.startedAt − instant) and each HTTP request arrived here (arrival − instant), p50/p99/max, and
//     how many instants fired. Issue #17's goals for 1,000: all started within 50 ms and all requests
//     received within 100 ms (p99).
//     Then the floors under those two figures on this machine, measured in the same run: the fire of the
//     same number of runs in SQLite alone (lib/raw-fire.js: one transaction advancing each job and inserting
//     its run and event, copies of this burst's rows, prepared statements), and the same burst of requests
//     from a bare Node process with undici and nothing else (lib/raw-http-burst.js). A run may not start
//     before it is recorded (a daemon killed between the two would run it again), so the started floor is
//     the fire plus the bare process's dispatch of every request, and the received floor the fire plus the
//     bare burst's arrivals.
// Knobs: BENCH_BURST_JOBS (1000; quick 300), BENCH_BURST_LEAD_MS (from the last create to the instant, 3000).
import { fork } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { knob } from './lib/config.js';
import { startDaemon } from './lib/daemon.js';
import { startHttpTarget } from './lib/http-target.js';
import { addProbeJobs } from './lib/probes.js';
import { emitResult, progress } from './lib/report.js';
import { makeTempDir, removeTempDir, stopChild, trackChild } from './lib/processes.js';
import { rawFire, rowsOfOneFire } from './lib/raw-fire.js';
import { readRuns } from './lib/runs-db.js';
import { summarize } from './lib/stats.js';

const JOBS = knob('BURST_JOBS', 1_000, 300);
const LEAD_MS = knob('BURST_LEAD_MS', 3_000);
/** Room after the instant for every run and request to arrive before the daemon stops. */
const SETTLE_MS = 5_000;

const target = await startHttpTarget({ arrivals: true });
const daemon = await startDaemon({ label: 'burst' });
let runs;
let instant;
let fireTemplate;
try {
  const client = await daemon.connect();
  // Whole seconds ahead: the instant is the same for every job, and well after their creation.
  instant = Math.ceil((Date.now() + LEAD_MS + JOBS * 2) / 1000) * 1000;
  progress(`burst: ${JOBS} jobs due at ${new Date(instant).toISOString()}`);
  await addProbeJobs(client, new Array(JOBS).fill(instant), {
    prefix: 'burst',
    target: { http: target.url },
  });
  client.close();
  if (Date.now() >= instant)
    throw new Error('creating the jobs took past their instant (raise BENCH_BURST_LEAD_MS)');
  await sleep(instant + SETTLE_MS - Date.now());
  await daemon.stop();
  runs = readRuns(daemon.databasePath).filter((run) => run.scheduledFor === instant);
  fireTemplate = rowsOfOneFire(daemon.databasePath);
} finally {
  await daemon.dispose();
  await target.close();
}

progress(`burst: the floors, ${JOBS} fires in SQLite alone and ${JOBS} requests from a bare process`);
const rawDir = makeTempDir('burst-floor');
let fireMs;
try {
  fireMs = rawFire(fireTemplate, { file: path.join(rawDir, 'raw.db'), count: JOBS });
} finally {
  removeTempDir(rawDir);
}
const bare = await bareBurst();

const started = summarize(runs.filter((run) => run.startedAt !== null).map((run) => run.startedAt - instant));
const received = summarize(target.arrivals().map((at) => at - instant));
const bareReceived = summarize(bare.arrivals);
const startedFloor = fireMs + bare.dispatchedMs;
const receivedFloor = fireMs + bareReceived.p99;
const notes = (what) =>
  `${runs.length.toLocaleString('en-US')}/${JOBS.toLocaleString('en-US')} instants fired, ${what}`;
const overFloor = (figure, floor) => `${(figure / floor).toFixed(1)}× the floor of ${Math.round(floor)} ms`;
emitResult({
  benchmark: `a burst: ${JOBS.toLocaleString('en-US')} HTTP jobs due at one instant, one daemon on SQLite`,
  rows: [
    {
      benchmark: 'burst',
      scenario: `${JOBS.toLocaleString('en-US')} due at once: runs started`,
      n: started.n,
      p50: started.p50,
      p99: started.p99,
      max: started.max,
      notes: notes(`run.startedAt − instant; p99 ${overFloor(started.p99, startedFloor)}`),
      goals: JOBS >= 1_000 ? { 'burst-started-p99': started.p99 } : undefined,
    },
    {
      benchmark: 'burst',
      scenario: `${JOBS.toLocaleString('en-US')} due at once: HTTP requests received`,
      n: received.n,
      p50: received.p50,
      p99: received.p99,
      max: received.max,
      notes: notes(`arrival at the endpoint − instant; p99 ${overFloor(received.p99, receivedFloor)}`),
      goals: JOBS >= 1_000 ? { 'burst-http-p99': received.p99 } : undefined,
    },
    {
      benchmark: 'burst',
      scenario: `floor: the fire of ${JOBS.toLocaleString('en-US')} runs in SQLite alone`,
      n: JOBS,
      max: fireMs,
      notes: "one transaction: each job advanced, its run and event inserted (this burst's rows, copied)",
    },
    {
      benchmark: 'burst',
      scenario: `floor: ${JOBS.toLocaleString('en-US')} requests at once from a bare process (undici)`,
      n: bareReceived.n,
      p50: bareReceived.p50,
      p99: bareReceived.p99,
      max: bareReceived.max,
      notes: `arrival − instant; every request() call returned ${Math.round(bare.dispatchedMs)} ms after the instant`,
    },
  ],
  figures: {
    jobs: JOBS,
    instant,
    started,
    received,
    fired: runs.length,
    floors: { fireMs, dispatchedMs: bare.dispatchedMs, bareReceived, startedFloor, receivedFloor },
  },
});

/** The same burst of requests from a bare process (lib/raw-http-burst.js) to a fresh endpoint. */
async function bareBurst() {
  const endpoint = await startHttpTarget({ arrivals: true });
  try {
    const at = Date.now() + 1_500;
    const script = fileURLToPath(new URL('./lib/raw-http-burst.js', import.meta.url));
    const child = trackChild(fork(script, [endpoint.url, String(JOBS), String(at)]));
    const done = await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) =>
        reject(new Error(`the bare burst exited with code ${code} before reporting`)),
      );
    });
    await stopChild(child, 5_000);
    if (done.answered.length !== JOBS)
      throw new Error(`the bare burst got ${done.answered.length} answers of ${JOBS}`);
    return { dispatchedMs: done.dispatchedMs, arrivals: endpoint.arrivals().map((arrival) => arrival - at) };
  } finally {
    await endpoint.close();
  }
}

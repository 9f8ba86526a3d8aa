// A burst (issue #17): N `at` jobs due at one and the same instant, each calling a loopback HTTP
//     endpoint in this process, on one daemon on a SQLite store. After the instant the daemon is stopped
//     and its runs are read from its database: how long after the instant each run was started
//     (run.startedAt − instant) and each HTTP request arrived here (arrival − instant), p50/p99/max, and
//     how many instants fired. Issue #17's goals for 1,000: all started within 50 ms and all requests
//     received within 100 ms (p99).
// Knobs: BENCH_BURST_JOBS (1000; quick 300), BENCH_BURST_LEAD_MS (from the last create to the instant, 3000).
import { setTimeout as sleep } from 'node:timers/promises';
import { knob } from './lib/config.js';
import { startDaemon } from './lib/daemon.js';
import { startHttpTarget } from './lib/http-target.js';
import { addProbeJobs } from './lib/probes.js';
import { emitResult, progress } from './lib/report.js';
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
} finally {
  await daemon.dispose();
  await target.close();
}

const started = summarize(runs.filter((run) => run.startedAt !== null).map((run) => run.startedAt - instant));
const received = summarize(target.arrivals().map((at) => at - instant));
const notes = (what) =>
  `${runs.length.toLocaleString('en-US')}/${JOBS.toLocaleString('en-US')} instants fired, ${what}`;
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
      notes: notes('run.startedAt − instant'),
      goals: JOBS >= 1_000 ? { 'burst-started-p99': started.p99 } : undefined,
    },
    {
      benchmark: 'burst',
      scenario: `${JOBS.toLocaleString('en-US')} due at once: HTTP requests received`,
      n: received.n,
      p50: received.p50,
      p99: received.p99,
      max: received.max,
      notes: notes('arrival at the endpoint − instant'),
      goals: JOBS >= 1_000 ? { 'burst-http-p99': received.p99 } : undefined,
    },
  ],
  figures: { jobs: JOBS, instant, started, received, fired: runs.length },
});

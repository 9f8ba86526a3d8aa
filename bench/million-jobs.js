// 10. A million jobs stored (issue #17 item 6). A store of 1,000,000 jobs `every 24h`, their next fires
//     spread from 1 h to 24 h ahead, is written straight into the database file (lib/bulk-fill.js), plus one
//     `at` job due the moment the daemon is spawned. Then, against one daemon on that store:
//     - start-up: spawn → the socket answers `daemon.status`, and spawn → the first fire (the run of the
//       job due at spawn, whatever its trigger: its createdAt on the daemon's clock, the same clock);
//     - RSS of the daemon process: once it answers, and the highest sampled (every 100 ms) while the
//       probes fire; with VmHWM, the peak since it started;
//     - firing lateness (run.createdAt − scheduledFor) of probe `at` jobs, 1,000 due every second over
//       10 s, created over the socket (lib/probes.js), each calling a loopback HTTP endpoint (answers 204);
//     - durable creates/s with the million stored: 8 client processes × 8 in flight (lib/create-client.js);
//     - `sched ls` end to end (spawn → exit of the CLI: its first page of 50 and the live-job count).
//     The lateness p99 is compared with the p99 of the same probes against a daemon with 1,000 jobs stored,
//     measured first in this run (not taken from firing-lateness.js, whose probes are 15 times sparser).
// Knobs: BENCH_MILLION_JOBS (1000000; quick 100000), BENCH_MILLION_BASELINE_JOBS (1000),
//        BENCH_MILLION_PROBES_PER_S (1000), BENCH_MILLION_WINDOW_S (10; quick 5),
//        BENCH_MILLION_CREATES (10000; quick 2000), BENCH_MILLION_LS_RUNS (5; quick 3).
import { setTimeout as sleep } from 'node:timers/promises';
import { knob } from './lib/config.js';
import { copyFarFutureJobs } from './lib/bulk-fill.js';
import { startCreateClients } from './lib/create-clients.js';
import { startDaemon } from './lib/daemon.js';
import { analyzeFires, fireNotes } from './lib/fires.js';
import { startHttpTarget } from './lib/http-target.js';
import { SCHED_BIN } from './lib/paths.js';
import { cpuMeter } from './lib/process-cpu.js';
import { peakRssMb, rssMb, rssSampler } from './lib/process-memory.js';
import { addProbeJobs, probeInstants } from './lib/probes.js';
import { makeTempDir } from './lib/processes.js';
import { emitResult, progress } from './lib/report.js';
import { readRuns } from './lib/runs-db.js';
import { summarize } from './lib/stats.js';
import { atJob, farFutureJobs, writeJobs } from './lib/store-fill.js';
import { timeProcess } from './lib/wall-time.js';

const JOBS = knob('MILLION_JOBS', 1_000_000, 100_000);
/** Issue #17's goals are for a million jobs stored: a smaller store (BENCH_QUICK) does not measure them. */
const AT_GOAL_SCALE = JOBS >= 1_000_000;
const BASELINE_JOBS = knob('MILLION_BASELINE_JOBS', 1_000);
const PROBES_PER_SECOND = knob('MILLION_PROBES_PER_S', 1_000);
const WINDOW_MS = knob('MILLION_WINDOW_S', 10, 5) * 1000;
const CREATES = knob('MILLION_CREATES', 10_000, 2_000);
const LS_RUNS = knob('MILLION_LS_RUNS', 5, 3);
const PROBES = Math.round((PROBES_PER_SECOND * WINDOW_MS) / 1000);
const CREATE_CLIENTS = 8;
const CREATE_CLIENT_DEPTH = 8;
/** Time to create the probes before the first is due: enough at 1,000 creates/s, a loaded machine's pace. */
const PROBE_LEAD_MS = 2_000 + PROBES;
/** After the last instant, before reading: room for late fires to show up as late, not as missed. */
const SETTLE_MS = 2_000;
/** How long the probes' runs may take to finish after the last is due (a backlog drains). */
const DRAIN_TIMEOUT_MS = 180_000;

const count = (value) => value.toLocaleString('en-US');
const mb = (value) => `${Math.round(value)} MB`;

/**
 * Probes due over the window, created over the socket. Resolves once the last is due and every run has
 * finished: what is measured next must not share the daemon with a backlog of runs.
 */
async function fireProbes(daemon, target) {
  const client = await daemon.connect();
  try {
    const instants = probeInstants(Date.now() + PROBE_LEAD_MS, PROBES, WINDOW_MS);
    progress(`million jobs: ${count(PROBES)} probes due over ${WINDOW_MS / 1000} s`);
    const { expected, createMs } = await addProbeJobs(client, instants, {
      prefix: 'probe',
      target: { http: target.url },
    });
    if (Date.now() >= instants[0])
      throw new Error(`creating the probes took ${createMs} ms, past the first one`);
    const lastDue = instants[instants.length - 1];
    await sleep(lastDue + SETTLE_MS - Date.now());
    await drained(client);
    return { expected, createMs, drainedAfterMs: Date.now() - lastDue };
  } finally {
    client.close();
  }
}

async function drained(client) {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while ((await client.call('daemon.status', {})).runningRuns > 0) {
    if (Date.now() > deadline)
      throw new Error(`runs still running ${DRAIN_TIMEOUT_MS / 1000} s after the probes`);
    await sleep(200);
  }
}

/**
 * A probe fired more than the misfire threshold (2 s) late is a `catchup` run: it counts as that late, not
 * as missed, so a backlog raises the p99 instead of leaving the slowest fires out of it.
 */
function probeFires(expected, runs) {
  return analyzeFires(expected, runs, { triggers: ['schedule', 'catchup'] });
}

async function baselineLateness(target) {
  const home = makeTempDir('million-base');
  progress(`million jobs: the baseline, ${count(BASELINE_JOBS)} jobs stored`);
  await writeJobs(`${home}/sched.db`, farFutureJobs(BASELINE_JOBS, 'far'));
  const daemon = await startDaemon({ label: 'million-base', home });
  try {
    const { expected, drainedAfterMs } = await fireProbes(daemon, target);
    await daemon.stop();
    return { ...probeFires(expected, readRuns(daemon.databasePath)), drainedAfterMs };
  } finally {
    await daemon.dispose();
  }
}

async function measureCreates(daemon) {
  const clients = await startCreateClients(daemon, { clients: CREATE_CLIENTS, warmup: 50 });
  try {
    const cpu = cpuMeter(daemon.pid);
    const { latenciesMs, elapsedMs } = await clients.run({
      count: CREATES,
      depth: CREATE_CLIENT_DEPTH,
      prefix: 'added',
    });
    const latency = summarize(latenciesMs);
    return { ...latency, jobsPerSec: latency.n / (elapsedMs / 1000), daemonCpuPct: cpu.stop(elapsedMs) };
  } finally {
    await clients.close();
  }
}

async function measureLs(daemon) {
  const env = { ...process.env, SCHED_HOME: daemon.home };
  const wallMs = [];
  for (let i = 0; i < LS_RUNS; i++) wallMs.push(await timeProcess([SCHED_BIN, 'ls'], env));
  return summarize(wallMs);
}

async function measureMillion(target) {
  const home = makeTempDir('million');
  progress(`million jobs: writing ${count(JOBS)} jobs into the store`);
  const fill = await copyFarFutureJobs(`${home}/sched.db`, JOBS, 'far');
  progress(`million jobs: written in ${(fill.writeMs / 1000).toFixed(0)} s; starting the daemon`);
  // Due before the spawn: an `at` must be in the future when written, so it is written a little ahead.
  const firstDue = Date.now() + 200;
  const { jobs } = await writeJobs(`${home}/sched.db`, [atJob('first-fire', firstDue)]);
  await sleep(firstDue - Date.now());
  const spawnedAt = Date.now();
  const daemon = await startDaemon({ label: 'million', home });
  try {
    const rssAfterStartMb = rssMb(daemon.pid);
    const sampler = rssSampler(daemon.pid);
    const { expected, drainedAfterMs } = await fireProbes(daemon, target);
    const rssUnderProbesMb = sampler.stop();
    progress(`million jobs: ${count(CREATES)} creates, ${CREATE_CLIENTS} clients × ${CREATE_CLIENT_DEPTH}`);
    const creates = await measureCreates(daemon);
    progress(`million jobs: sched ls × ${LS_RUNS}`);
    const ls = await measureLs(daemon);
    const peakMb = peakRssMb(daemon.pid);
    await daemon.stop();
    const runs = readRuns(daemon.databasePath);
    const firstFire = runs
      .filter((run) => run.jobId === jobs[0].id)
      .sort((a, b) => a.createdAt - b.createdAt)[0];
    return {
      jobs: JOBS,
      fillMs: fill.writeMs,
      socketAnswersMs: daemon.startMs,
      firstFireMs: firstFire ? firstFire.createdAt - spawnedAt : NaN,
      firstFireTrigger: firstFire?.trigger ?? null,
      rssAfterStartMb,
      rssUnderProbesMb,
      peakRssMb: peakMb,
      fires: { ...probeFires(expected, runs), drainedAfterMs },
      creates,
      ls,
    };
  } finally {
    await daemon.dispose();
  }
}

// The probes call an HTTP endpoint in this process: spawning 1,000 `true` a second would measure the
// executor's backlog (spawn-lateness.js does that), not what a million stored jobs cost.
const target = await startHttpTarget();
let baseline;
let million;
try {
  baseline = await baselineLateness(target);
  million = await measureMillion(target);
} finally {
  await target.close();
}
const stored = `${count(JOBS)} jobs`;
const latenessRatio = million.fires.latenessMs.p99 / baseline.latenessMs.p99;
const fireRow = (scenario, fires, goals, note) => ({
  benchmark: 'million jobs',
  scenario,
  n: fires.fired,
  p50: fires.latenessMs.p50,
  p99: fires.latenessMs.p99,
  max: fires.latenessMs.max,
  notes: [
    note,
    fireNotes(fires),
    `all runs done ${(fires.drainedAfterMs / 1000).toFixed(1)} s after the last due`,
  ]
    .filter(Boolean)
    .join('; '),
  goals,
});
const probesLabel = `${count(PROBES_PER_SECOND)} probes/s for ${WINDOW_MS / 1000} s`;
emitResult({
  benchmark: `a million jobs: ${stored} stored (lateness = run.createdAt − scheduledFor)`,
  rows: [
    {
      benchmark: 'million jobs',
      scenario: `${stored}: start, spawn → socket answers`,
      n: 1,
      p50: million.socketAnswersMs,
      notes: `store written in ${(million.fillMs / 1000).toFixed(0)} s, not through the daemon`,
    },
    {
      benchmark: 'million jobs',
      scenario: `${stored}: start, spawn → first fire`,
      n: Number.isFinite(million.firstFireMs) ? 1 : 0,
      p50: million.firstFireMs,
      notes: million.firstFireTrigger ? `trigger ${million.firstFireTrigger}` : 'never fired',
      goals: AT_GOAL_SCALE ? { 'million-first-fire': million.firstFireMs / 1000 } : undefined,
    },
    {
      benchmark: 'million jobs',
      scenario: `${stored}: daemon RSS`,
      notes:
        `after start ${mb(million.rssAfterStartMb)}, under the probes up to ${mb(million.rssUnderProbesMb)}, ` +
        `peak (VmHWM) ${mb(million.peakRssMb)}`,
      goals: AT_GOAL_SCALE
        ? { 'million-rss': Math.max(million.rssUnderProbesMb, million.peakRssMb) }
        : undefined,
    },
    fireRow(`${count(BASELINE_JOBS)} jobs: lateness, ${probesLabel}`, baseline, {
      'firing-early': baseline.early,
    }),
    fireRow(
      `${stored}: lateness, ${probesLabel}`,
      million.fires,
      {
        ...(AT_GOAL_SCALE && { 'million-lateness-ratio': latenessRatio }),
        'firing-early': million.fires.early,
      },
      `p99 ${latenessRatio.toFixed(2)}× the ${count(BASELINE_JOBS)} jobs' p99 (the row above, this run)`,
    ),
    {
      benchmark: 'million jobs',
      scenario: `${stored}: creates, ${CREATE_CLIENTS} client processes × ${CREATE_CLIENT_DEPTH} in flight`,
      n: million.creates.n,
      rate: million.creates.jobsPerSec,
      rateUnit: 'jobs/s',
      p50: million.creates.p50,
      p99: million.creates.p99,
      max: million.creates.max,
      notes: `daemon CPU ${Math.round(million.creates.daemonCpuPct)}% of a core`,
      goals: AT_GOAL_SCALE ? { 'million-creates': million.creates.jobsPerSec } : undefined,
    },
    {
      benchmark: 'million jobs',
      scenario: `${stored}: sched ls, first page (spawn → exit)`,
      n: million.ls.n,
      p50: million.ls.p50,
      p99: million.ls.p99,
      max: million.ls.max,
      notes: '50 jobs and the live-job count',
    },
  ],
  figures: { baseline, million, latenessRatio, probesPerSecond: PROBES_PER_SECOND, windowMs: WINDOW_MS },
});

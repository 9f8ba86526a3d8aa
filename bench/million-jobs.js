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
//     running beside it (not taken from firing-lateness.js, whose probes are 15 times sparser). The probes
//     come in windows that alternate between the two daemons, and each daemon's p99 is over all of its
//     windows: a shared machine's slow spells then fall on both alike, where one window each compared
//     whatever the machine was doing in two different moments.
// Knobs: BENCH_MILLION_JOBS (1000000; quick 100000), BENCH_MILLION_BASELINE_JOBS (1000),
//        BENCH_MILLION_PROBES_PER_S (1000), BENCH_MILLION_WINDOW_S (10; quick 5: the probes' time a
//        daemon, in all), BENCH_MILLION_PROBE_WINDOWS (4; quick 2: the windows it is split into),
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
const PROBE_WINDOWS = knob('MILLION_PROBE_WINDOWS', 4, 2);
const PROBES = Math.round((PROBES_PER_SECOND * WINDOW_MS) / 1000);
/** One window of probes: this share of them, due over this share of the time. */
const WINDOW_PROBES = Math.round(PROBES / PROBE_WINDOWS);
const PROBE_WINDOW_MS = WINDOW_MS / PROBE_WINDOWS;
const CREATE_CLIENTS = 8;
const CREATE_CLIENT_DEPTH = 8;
/** Time to create a window's probes before the first is due: enough at 1,000 creates/s, a loaded machine's pace. */
const PROBE_LEAD_MS = 2_000 + WINDOW_PROBES;
/** Before the probes: both daemons at most this busy (% of a core) over a second, for at most IDLE_WAIT_MS. */
const IDLE_CPU_PCT = 5;
const IDLE_WAIT_MS = 60_000;
/** After the last instant, before reading: room for late fires to show up as late, not as missed. */
const SETTLE_MS = 2_000;
/** How long the probes' runs may take to finish after the last is due (a backlog drains). */
const DRAIN_TIMEOUT_MS = 180_000;

const count = (value) => value.toLocaleString('en-US');
const mb = (value) => `${Math.round(value)} MB`;

/**
 * One window of probes, created over the socket. Resolves once the last is due and every run has
 * finished: what is measured next must not share the machine with a backlog of runs.
 */
async function fireProbes(daemon, target, prefix) {
  const client = await daemon.connect();
  try {
    const instants = probeInstants(Date.now() + PROBE_LEAD_MS, WINDOW_PROBES, PROBE_WINDOW_MS);
    const { expected, createMs } = await addProbeJobs(client, instants, {
      prefix,
      target: { http: target.url },
    });
    if (Date.now() >= instants[0])
      throw new Error(`creating the probes took ${createMs} ms, past the first one`);
    const lastDue = instants[instants.length - 1];
    await sleep(lastDue + SETTLE_MS - Date.now());
    await drained(client);
    return { expected, drainedAfterMs: Date.now() - lastDue };
  } finally {
    client.close();
  }
}

/**
 * The probes' windows, alternating between the daemons (`{ daemon, name }`), the first one first, after a
 * window each to warm up (the first fires and HTTP calls of a daemon compile and connect: the first window's
 * p99 was 3 to 7 times the others', whatever the store). Returns, for each, the warm-up's expected fires,
 * each window's, and the longest any window took to drain after its last instant.
 */
async function alternateProbes(daemons, target) {
  const probed = daemons.map(() => ({ warmUp: null, windows: [], drainedAfterMs: 0 }));
  for (let window = 0; window <= PROBE_WINDOWS; window++) {
    for (const [index, { daemon, name }] of daemons.entries()) {
      const warmUp = window === 0;
      progress(
        `million jobs: ${warmUp ? 'warm-up window' : `window ${window} of ${PROBE_WINDOWS}`}, ` +
          `${count(WINDOW_PROBES)} probes due over ${PROBE_WINDOW_MS / 1000} s, ${name} stored`,
      );
      const { expected, drainedAfterMs } = await fireProbes(daemon, target, `probe-w${window}`);
      if (warmUp) probed[index].warmUp = expected;
      else probed[index].windows.push(expected);
      probed[index].drainedAfterMs = Math.max(probed[index].drainedAfterMs, drainedAfterMs);
    }
  }
  return probed;
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

async function startBaseline() {
  const home = makeTempDir('million-base');
  progress(`million jobs: the baseline, ${count(BASELINE_JOBS)} jobs stored`);
  await writeJobs(`${home}/sched.db`, farFutureJobs(BASELINE_JOBS, 'far'));
  return startDaemon({ label: 'million-base', home });
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

/** The million daemon, spawned on its store with one job due as it starts: its first fire. */
async function startMillion() {
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
  return { daemon, fillMs: fill.writeMs, spawnedAt, firstFireJobId: jobs[0].id };
}

/** Every window's fires together, and each window's p99 beside them. */
function windowedFires({ warmUp, windows, drainedAfterMs }, runs) {
  return {
    ...probeFires(windows.flat(), runs),
    warmUpP99: probeFires(warmUp, runs).latenessMs.p99,
    windowP99s: windows.map((expected) => probeFires(expected, runs).latenessMs.p99),
    drainedAfterMs,
  };
}

/**
 * Waits until every process of `pids` spent at most IDLE_CPU_PCT of a core over a second: a daemon
 * that has just opened a million jobs is still busy for a while, and its work would fall on the other's
 * window. Says so and goes on after IDLE_WAIT_MS.
 */
async function untilIdle(pids) {
  const deadline = Date.now() + IDLE_WAIT_MS;
  while (Date.now() < deadline) {
    const meters = pids.map(cpuMeter);
    const started = Date.now();
    await sleep(1_000);
    if (meters.every((meter) => meter.stop(Date.now() - started) <= IDLE_CPU_PCT)) return;
  }
  progress(`million jobs: the daemons were still busy after ${IDLE_WAIT_MS / 1000} s; probing anyway`);
}

/** Both daemons side by side: the baseline's probes and the million's alternate (alternateProbes). */
async function measure(target) {
  const baselineDaemon = await startBaseline();
  try {
    const { daemon, fillMs, spawnedAt, firstFireJobId } = await startMillion();
    try {
      const rssAfterStartMb = rssMb(daemon.pid);
      await untilIdle([baselineDaemon.pid, daemon.pid]);
      const sampler = rssSampler(daemon.pid);
      const [baseProbes, millionProbes] = await alternateProbes(
        [
          { daemon: baselineDaemon, name: `${count(BASELINE_JOBS)} jobs` },
          { daemon, name: `${count(JOBS)} jobs` },
        ],
        target,
      );
      const rssUnderProbesMb = sampler.stop();
      progress(`million jobs: ${count(CREATES)} creates, ${CREATE_CLIENTS} clients × ${CREATE_CLIENT_DEPTH}`);
      const creates = await measureCreates(daemon);
      progress(`million jobs: sched ls × ${LS_RUNS}`);
      const ls = await measureLs(daemon);
      const peakMb = peakRssMb(daemon.pid);
      await Promise.all([baselineDaemon.stop(), daemon.stop()]);
      const runs = readRuns(daemon.databasePath);
      const firstFire = runs
        .filter((run) => run.jobId === firstFireJobId)
        .sort((a, b) => a.createdAt - b.createdAt)[0];
      const baseline = windowedFires(baseProbes, readRuns(baselineDaemon.databasePath));
      const million = {
        jobs: JOBS,
        fillMs,
        socketAnswersMs: daemon.startMs,
        firstFireMs: firstFire ? firstFire.createdAt - spawnedAt : NaN,
        firstFireTrigger: firstFire?.trigger ?? null,
        rssAfterStartMb,
        rssUnderProbesMb,
        peakRssMb: peakMb,
        fires: windowedFires(millionProbes, runs),
        creates,
        ls,
      };
      return { baseline, million };
    } finally {
      await daemon.dispose();
    }
  } finally {
    await baselineDaemon.dispose();
  }
}

// The probes call an HTTP endpoint in this process: spawning 1,000 `true` a second would measure the
// executor's backlog (spawn-lateness.js does that), not what a million stored jobs cost.
const target = await startHttpTarget();
let baseline;
let million;
try {
  ({ baseline, million } = await measure(target));
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
    `p99 by window ${fires.windowP99s.map(Math.round).join(', ')} ms (the warm-up before them ${Math.round(fires.warmUpP99)} ms)`,
    `all runs done ${(fires.drainedAfterMs / 1000).toFixed(1)} s after the last due`,
  ]
    .filter(Boolean)
    .join('; '),
  goals,
});
const probesLabel = `${count(PROBES_PER_SECOND)} probes/s for ${WINDOW_MS / 1000} s in ${PROBE_WINDOWS} windows`;
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
      `p99 ${latenessRatio.toFixed(2)}× the ${count(BASELINE_JOBS)} jobs' p99 (the row above: the same windows, alternating)`,
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
  figures: {
    baseline,
    million,
    latenessRatio,
    probesPerSecond: PROBES_PER_SECOND,
    windowMs: WINDOW_MS,
    probeWindows: PROBE_WINDOWS,
  },
});

// 4. Firing lateness while the daemon spawns ~500 commands a second: 500 jobs `every 1s` running `true`,
//    their anchors spread evenly over one second (so the load is steady, not a burst each second), plus
//    probe `at` jobs due at distinct instants across the measuring window. All are written into the
//    store before the daemon starts, so no request competes with the firing being measured. Lateness is
//    measured for the probes and for the every-1s jobs' own fires; throughput is runs finished per second
//    in the window, and "done after" (finishedAt − scheduledFor, for a command that does nothing) shows
//    whether the executor keeps up.
// Knobs: BENCH_SPAWN_JOBS (500), BENCH_SPAWN_PROBES (300), BENCH_SPAWN_WINDOW_MS (15000).
import { setTimeout as sleep } from 'node:timers/promises';
import { knob } from './lib/config.js';
import { startDaemon } from './lib/daemon.js';
import { analyzeFires, fireNotes, secondBySecond } from './lib/fires.js';
import { cpuMeter } from './lib/process-cpu.js';
import { probeInstants } from './lib/probes.js';
import { makeTempDir } from './lib/processes.js';
import { goalById } from './lib/goals.js';
import { emitResult, progress } from './lib/report.js';
import { readRuns } from './lib/runs-db.js';
import { renderTable } from './lib/table.js';
import { atJob, everyJob, writeJobs } from './lib/store-fill.js';

const SPAWN_JOBS = knob('SPAWN_JOBS', 500, 200);
const PROBES = knob('SPAWN_PROBES', 300, 100);
const WINDOW_MS = knob('SPAWN_WINDOW_MS', 15_000, 5_000);
const INTERVAL_MS = 1_000;
/** Writing the jobs and starting the daemon, before the first anchor. */
const START_BUDGET_MS = 2_500;
/** Load before the window opens: the executor and the database reach their steady state. */
const WARMUP_MS = 3_000;
const SETTLE_MS = 2_000;

/** Every instant of every job on its grid (anchor + k × interval) inside [from, to). */
function gridInstants(jobs, from, to) {
  const instants = [];
  for (const job of jobs) {
    const { anchorMs, intervalMs } = job.schedule;
    for (
      let at = anchorMs + Math.ceil((from - anchorMs) / intervalMs) * intervalMs;
      at < to;
      at += intervalMs
    ) {
      instants.push({ jobId: job.id, scheduledFor: at });
    }
  }
  return instants;
}

const home = makeTempDir('spawn');
const firstAnchor = Date.now() + START_BUDGET_MS;
const from = firstAnchor + INTERVAL_MS + WARMUP_MS;
const to = from + WINDOW_MS;
progress(`spawn load: ${SPAWN_JOBS} jobs every 1s + ${PROBES} probes, measured for ${WINDOW_MS / 1000} s`);
const ticks = Array.from({ length: SPAWN_JOBS }, (_, i) =>
  everyJob(`tick-${i}`, '1s', firstAnchor + Math.round((i * INTERVAL_MS) / SPAWN_JOBS)),
);
const probes = probeInstants(from, PROBES, WINDOW_MS).map((at, i) => atJob(`probe-${i}`, at));
const { jobs } = await writeJobs(`${home}/sched.db`, [...ticks, ...probes]);
const daemon = await startDaemon({ label: 'spawn', home });
let result;
try {
  if (Date.now() > from - WARMUP_MS / 2) throw new Error('the daemon took too long to start');
  await sleep(from - Date.now());
  const cpu = cpuMeter(daemon.pid);
  await sleep(to - Date.now());
  const daemonCpuPct = cpu.stop(WINDOW_MS);
  await sleep(SETTLE_MS);
  await daemon.stop();

  const runs = readRuns(daemon.databasePath);
  const window = { from, to: to - 1 };
  const probeExpected = jobs.slice(SPAWN_JOBS).map((job) => ({ jobId: job.id, scheduledFor: job.nextRunAt }));
  const windowSeconds = WINDOW_MS / 1000;
  const inWindow = (at) => at !== null && at >= from && at < to;
  const finished = runs.filter((run) => inWindow(run.finishedAt));
  result = {
    ticks: analyzeFires(gridInstants(jobs.slice(0, SPAWN_JOBS), from, to), runs, window),
    probes: analyzeFires(probeExpected, runs, window),
    firedPerSec: runs.filter((run) => inWindow(run.createdAt)).length / windowSeconds,
    startedPerSec: runs.filter((run) => inWindow(run.startedAt)).length / windowSeconds,
    finishedPerSec: finished.length / windowSeconds,
    finishedNotSucceeded: finished.filter((run) => run.state !== 'succeeded').length,
    daemonCpuPct,
    secondBySecond: secondBySecond(runs, from, to),
    daemonLog: daemon.log,
    windowMs: WINDOW_MS,
  };
} finally {
  await daemon.dispose();
}

console.log(
  `\nsecond by second (runs due in each second of the window; a climbing finish lag is a growing backlog)\n` +
    renderTable(
      [
        { header: 's', value: (row) => row.second },
        { header: 'due', value: (row) => row.due },
        { header: 'lateness p50 ms', value: (row) => row.latenessP50Ms },
        { header: 'finished', value: (row) => row.finished },
        { header: 'done after p50 ms', value: (row) => row.finishLagP50Ms },
      ],
      result.secondBySecond,
    ),
);

const fireRow = (scenario, fires, goals) => ({
  benchmark: 'lateness under spawn load',
  scenario,
  n: fires.fired,
  p50: fires.latenessMs.p50,
  p99: fires.latenessMs.p99,
  max: fires.latenessMs.max,
  notes: fireNotes(fires),
  goals,
});
// The goal's rate is 500 spawns/s: a run asking fewer (BENCH_QUICK) does not measure it.
const measuresSpawnRate = SPAWN_JOBS >= goalById('spawn-rate').target;
emitResult({
  benchmark: `firing lateness while spawning ~${SPAWN_JOBS} commands/s (window ${WINDOW_MS / 1000} s)`,
  rows: [
    fireRow(`probes (${PROBES} at-jobs) amid ${SPAWN_JOBS} every-1s jobs`, result.probes, {
      'spawn-probe-p99': result.probes.latenessMs.p99,
    }),
    fireRow(`the ${SPAWN_JOBS} every-1s jobs' own fires`, result.ticks, {
      'spawn-skipped': result.ticks.missed,
    }),
    {
      benchmark: 'lateness under spawn load',
      scenario: 'runs finished in the window',
      n: Math.round(result.finishedPerSec * (WINDOW_MS / 1000)),
      rate: result.finishedPerSec,
      rateUnit: 'runs/s',
      notes:
        `fired ${Math.round(result.firedPerSec)}/s, started ${Math.round(result.startedPerSec)}/s, ` +
        `not succeeded ${result.finishedNotSucceeded}, daemon CPU ${Math.round(result.daemonCpuPct)}% of a core`,
      goals: measuresSpawnRate ? { 'spawn-rate': result.finishedPerSec } : undefined,
    },
  ],
  figures: result,
});

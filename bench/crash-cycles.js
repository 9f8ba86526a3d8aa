// Crash cycles: one daemon on one SQLite database, killed with SIGKILL at a random moment N times while
// clients add jobs with idempotency keys and per-second jobs run. After each restart it checks that every
// acknowledged job is there, that no run of a killed daemon is still `running`, that no (job, instant,
// attempt) has two runs, that repeating an unanswered create returns one job, that `PRAGMA
// integrity_check` is ok, and that no child of a killed daemon is alive. Reports cycles, violations per
// kind (with evidence) and cycle times. test/daemon/crash-cycles.test.ts runs it with 50 cycles.
// Usage: node bench/crash-cycles.js [CYCLES]
// Knobs: BENCH_CRASH_CYCLES (1000; quick 50), BENCH_CRASH_WINDOW_MS (1500: the kill falls uniformly in
//        this long after the daemon answers), BENCH_CRASH_STARTUP_KILLS (20: percent of restarts also
//        killed while starting), BENCH_CRASH_CLIENTS (2 creators), BENCH_CRASH_CREATE_PAUSE_MS (40),
//        BENCH_CRASH_SEED (random; printed, so a run can be repeated).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { knob } from './lib/config.js';
import { createRequest, startCreates } from './lib/crash-load.js';
import { checkDatabase, isJournaledAlive, jobsNamed, orphansOf, readKilledState } from './lib/crash-state.js';
import { spawnDaemonProcess, startDaemon } from './lib/daemon.js';
import { makeTempDir, removeTempDir } from './lib/processes.js';
import { emitResult, progress } from './lib/report.js';
import { median, summarize } from './lib/stats.js';

const CYCLES = process.argv[2] === undefined ? knob('CRASH_CYCLES', 1000, 50) : Number(process.argv[2]);
const WINDOW_MS = knob('CRASH_WINDOW_MS', 1500);
const STARTUP_KILL_PCT = knob('CRASH_STARTUP_KILLS', 20);
const CLIENTS = knob('CRASH_CLIENTS', 2);
const CREATE_PAUSE_MS = knob('CRASH_CREATE_PAUSE_MS', 40);
const SEED = knob('CRASH_SEED', Math.floor(Math.random() * 2 ** 31));
const EVIDENCE_KEPT = 50;
if (!Number.isInteger(CYCLES) || CYCLES < 1)
  throw new Error(`CYCLES must be a positive integer, got ${process.argv[2]}`);

/**
 * Per-second jobs: quick ones, retried ones (attempts > 1), and one whose run outlives any restart, so every
 * kill leaves a child that only the next daemon's orphan sweep can stop.
 */
const TICK_JOBS = [
  { name: 'tick-true', every: '1s', argv: ['true'] },
  { name: 'tick-short', every: '1s', argv: ['sleep', '0.3'] },
  { name: 'tick-long', every: '1s', argv: ['sleep', '30'], concurrency: 'forbid', retries: 1, backoff: '1s' },
  { name: 'tick-fail', every: '1s', argv: ['false'], retries: 2, backoff: '1s' },
];

/** mulberry32: a seeded random in [0, 1), so a run that found something can be repeated. */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const random = seededRandom(SEED);
const home = makeTempDir('crash');
const violations = [];
const violationCounts = {};
/** Every job ever acknowledged, by idempotency key. */
const acknowledged = new Map();
const cycleMs = [];
const restartMs = [];
const totals = { startupKills: 0, unanswered: 0, orphanSweeps: 0 };

function violated(cycle, kind, evidence) {
  violationCounts[kind] = (violationCounts[kind] ?? 0) + 1;
  if (violations.length < EVIDENCE_KEPT) violations.push({ cycle, kind, evidence });
  progress(`✗ cycle ${cycle}: ${kind}: ${JSON.stringify(evidence)}`);
}

async function killNow(daemon) {
  process.kill(daemon.pid, 'SIGKILL');
  await daemon.exited;
}

/** A daemon killed at a random moment while it starts (recovering from the previous kill, say). */
async function killWhileStarting() {
  const child = spawnDaemonProcess({ home });
  child.stdout.resume();
  child.stderr.resume();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await sleep(random() * median(restartMs.length ? restartMs : [1000]));
  if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
  await exited;
}

/** Repeats each unanswered create, and one acknowledged one: each must give one job, the same as before. */
async function checkRetries(cycle, daemon, keys) {
  const client = await daemon.connect();
  try {
    for (const key of keys) {
      const before = jobsNamed(daemon.databasePath, key);
      try {
        const job = await client.call('job.add', createRequest(key));
        const after = jobsNamed(daemon.databasePath, key);
        const expected = acknowledged.get(key) ?? before[0] ?? job.id;
        if (job.id !== expected || after.length !== 1 || after[0] !== job.id)
          violated(cycle, 'idempotent retry', { key, returned: job.id, expected, before, after });
        acknowledged.set(key, job.id);
      } catch (error) {
        violated(cycle, 'idempotent retry', { key, before, code: error.code, message: error.message });
      }
    }
  } finally {
    client.close();
  }
}

function checkChildren(cycle, killed, livePid) {
  for (const orphan of orphansOf(home, livePid)) violated(cycle, 'child of killed daemon alive', orphan);
  for (const entry of killed.flatMap((state) => state.journaled))
    if (isJournaledAlive(entry)) violated(cycle, 'journaled child alive', entry);
}

progress(`crash-cycles: ${CYCLES} cycles, kill within ${WINDOW_MS} ms of ready, seed ${SEED}, home ${home}`);
const started = performance.now();
let daemon = await startDaemon({ label: 'crash', home });
{
  const client = await daemon.connect();
  for (const input of TICK_JOBS) await client.call('job.add', { input });
  client.close();
}
let cycle = 0;
while (cycle < CYCLES) {
  cycle += 1;
  const cycleStarted = performance.now();
  const client = await daemon.connect();
  const creates = startCreates(client, {
    prefix: `c${cycle}`,
    lanes: CLIENTS,
    pauseMs: CREATE_PAUSE_MS,
    random,
  });
  await sleep(random() * WINDOW_MS);
  await killNow(daemon);
  await creates.finished();
  client.close();
  for (const [key, jobId] of creates.acknowledged) acknowledged.set(key, jobId);
  for (const refusal of creates.refused) violated(cycle, 'create refused', refusal);
  totals.unanswered += creates.unanswered.size;

  const killed = [readKilledState(daemon.databasePath, home)];
  if (random() * 100 < STARTUP_KILL_PCT) {
    totals.startupKills += 1;
    await killWhileStarting();
    killed.push(readKilledState(daemon.databasePath, home));
  }
  if (killed.some((state) => state.running.length > 0 || state.journaled.length > 0))
    totals.orphanSweeps += 1;

  try {
    daemon = await startDaemon({ label: 'crash', home });
  } catch (error) {
    violated(cycle, 'restart failed', { message: error.message });
    break;
  }
  restartMs.push(daemon.startMs);
  for (const [kind, evidence] of checkDatabase(daemon.databasePath, {
    acknowledged,
    killedRunning: killed.flatMap((state) => state.running),
  }))
    violated(cycle, kind, evidence);
  checkChildren(cycle, killed, daemon.pid);
  const someAcknowledged = [...creates.acknowledged.keys()][Math.floor(random() * creates.acknowledged.size)];
  await checkRetries(cycle, daemon, [...creates.unanswered, ...(someAcknowledged ? [someAcknowledged] : [])]);
  cycleMs.push(performance.now() - cycleStarted);
  if (cycle % 50 === 0) progress(`cycle ${cycle}: ${violations.length} violations so far`);
}
await daemon.stop();
removeTempDir(home);

const seconds = (performance.now() - started) / 1000;
const cycleTimes = summarize(cycleMs);
const restartTimes = summarize(restartMs);
const violationTotal = Object.values(violationCounts).reduce((sum, count) => sum + count, 0);
const violationNotes = violationTotal
  ? Object.entries(violationCounts)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(', ')
  : 'none';
emitResult({
  benchmark: 'crash-cycles (kill -9, restart, check)',
  rows: [
    {
      benchmark: 'crash-cycles',
      scenario: `kill -9 within ${WINDOW_MS} ms, ${CYCLES} cycles`,
      n: cycleMs.length,
      rate: cycleMs.length / (seconds / 60),
      rateUnit: 'cycles/min',
      p50: Math.round(cycleTimes.p50),
      p99: Math.round(cycleTimes.p99),
      max: Math.round(cycleTimes.max),
      notes: `violations: ${violationNotes}; seed ${SEED}`,
    },
    {
      benchmark: 'crash-cycles',
      scenario: 'restart until it answers',
      n: restartTimes.n,
      p50: Math.round(restartTimes.p50),
      p99: Math.round(restartTimes.p99),
      max: Math.round(restartTimes.max),
      notes:
        `${totals.startupKills} also killed while starting, ${totals.orphanSweeps} with runs to sweep; ` +
        `${acknowledged.size} creates, ${totals.unanswered} unanswered and retried`,
    },
  ],
  figures: {
    cycles: cycleMs.length,
    cyclesAsked: CYCLES,
    seed: SEED,
    windowMs: WINDOW_MS,
    violations: violationCounts,
    evidence: violations,
    cycleMs: cycleTimes,
    restartMs: restartTimes,
    acknowledgedCreates: acknowledged.size,
    ...totals,
  },
});

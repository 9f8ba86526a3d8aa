// 19. A large snapshot in peer mode (issue #12): a member too far behind the leader's log gets a copy of the
//     leader's database file and takes its rows in (SqliteReplica.replaceWithFile), in a worker thread.
//     This measures, on a store of BENCH_SNAPSHOT_JOBS jobs (lib/bulk-fill.js) with BENCH_SNAPSHOT_RUNS_PER_JOB
//     runs each (copies of one run made through the store, so their rows are real ones):
//     - the leader's copy of its file (copyTo: SQLite's online backup, in steps), and the longest its event
//       loop was held meanwhile;
//     - the receiving member's replaceWithFile: how long it takes, and the longest its event loop was held
//       meanwhile (the rows move in one transaction on the worker's connection).
// Knobs: BENCH_SNAPSHOT_JOBS (100,000; quick 10,000), BENCH_SNAPSHOT_RUNS_PER_JOB (5).
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { newId } from '../dist/store/ids.js';
import { openSqliteStore } from '../dist/store/sqlite/sqlite-store.js';
import { copyFarFutureJobs } from './lib/bulk-fill.js';
import { knob } from './lib/config.js';
import { makeTempDir, removeTempDir } from './lib/processes.js';
import { emitResult, progress } from './lib/report.js';

const JOBS = knob('SNAPSHOT_JOBS', 100_000, 10_000);
const RUNS_PER_JOB = knob('SNAPSHOT_RUNS_PER_JOB', 5);
const count = (value) => value.toLocaleString('en-US');

/**
 * Gives every job `perJob` runs: one run made through the store, its row copied in SQL once per job and
 * attempt number, each copy with its own id, job and instant.
 */
async function addRuns(file, perJob) {
  const store = openSqliteStore(file);
  const {
    items: [job],
  } = await store.listJobs({ limit: 1 });
  const at = job.nextRunAt;
  await store.insertRun({
    id: newId(),
    jobId: job.id,
    scheduledFor: at,
    attempt: 1,
    trigger: 'schedule',
    node: '127.0.0.1:7946',
    fence: 1,
    now: at,
    state: 'scheduled',
    dueAt: at,
  });
  await store.close();
  const db = new Database(file);
  try {
    const columns = db
      .prepare('PRAGMA table_info(runs)')
      .all()
      .map((column) => column.name);
    const made = {
      id: "run.id || '-' || job.rowid || '-' || k.i",
      job_id: 'job.id',
      scheduled_for: 'run.scheduled_for - k.i * 60000',
    };
    const select = columns.map((column) => made[column] ?? `run.${column}`).join(', ');
    db.exec(`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${perJob})
      INSERT INTO runs (${columns.join(', ')})
      SELECT ${select} FROM (SELECT * FROM runs LIMIT 1) AS run, jobs AS job, k`);
  } finally {
    db.close();
  }
}

const dir = makeTempDir('snapshot');
try {
  const leaderFile = path.join(dir, 'leader.db');
  progress(`filling a store with ${count(JOBS)} jobs and ${count(JOBS * RUNS_PER_JOB)} runs`);
  await copyFarFutureJobs(leaderFile, JOBS, 'snapshot');
  await addRuns(leaderFile, RUNS_PER_JOB);

  const leader = openSqliteStore(leaderFile);
  const copy = path.join(dir, 'snapshot.db');
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let started = performance.now();
  await leader.replica.copyTo(copy);
  const copyMs = performance.now() - started;
  loop.disable();
  const copyLoopMaxMs = loop.max / 1e6;
  const megabytes = fs.statSync(copy).size / 1e6;

  const member = openSqliteStore(path.join(dir, 'member.db'));
  const memberLoop = monitorEventLoopDelay({ resolution: 10 });
  memberLoop.enable();
  started = performance.now();
  await member.replica.replaceWithFile(copy);
  const installMs = performance.now() - started;
  memberLoop.disable();
  const installLoopMaxMs = memberLoop.max / 1e6;
  await member.close();
  await leader.close();

  const size = `${count(JOBS)} jobs, ${count(JOBS * RUNS_PER_JOB)} runs, ${megabytes.toFixed(0)} MB`;
  emitResult({
    benchmark: 'snapshot-install',
    rows: [
      {
        benchmark: 'snapshot-install',
        scenario: `the leader copies its file (${size})`,
        n: 1,
        max: Math.round(copyLoopMaxMs),
        notes: `copyTo took ${Math.round(copyMs)} ms in steps; max = the longest its event loop was held meanwhile`,
      },
      {
        benchmark: 'snapshot-install',
        scenario: `a member takes the copy in (${size})`,
        n: 1,
        max: Math.round(installLoopMaxMs),
        notes: `replaceWithFile took ${Math.round(installMs)} ms in a worker thread; max = the longest the member's event loop (heartbeats, probes, its socket) was held meanwhile`,
      },
    ],
    figures: {
      copyMs,
      copyLoopMaxMs,
      installMs,
      installLoopMaxMs,
      megabytes,
      jobs: JOBS,
      runs: JOBS * RUNS_PER_JOB,
    },
  });
} finally {
  removeTempDir(dir);
}

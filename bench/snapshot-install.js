// 19. A large snapshot in peer mode (issue #12): a member too far behind the leader's log gets a copy of the
//     leader's database file and takes its rows in (SqliteReplica.replaceWithFile), in one synchronous call.
//     This measures, on a store of BENCH_SNAPSHOT_JOBS jobs with BENCH_SNAPSHOT_RUNS_PER_JOB runs each (rows
//     copied from one job and one run made through the store, so their sizes are real ones):
//     - the leader's copy of its file (copyTo: SQLite's online backup, in steps), and the longest its event
//       loop was held meanwhile;
//     - the receiving member's replaceWithFile: its event loop is held for all of it.
// Knobs: BENCH_SNAPSHOT_JOBS (100,000; quick 10,000), BENCH_SNAPSHOT_RUNS_PER_JOB (5).
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { DEFAULT_PLACEMENT, DEFAULT_RETRY_POLICY, DEFAULT_TIME_POLICY } from '../dist/core/job.js';
import { newId } from '../dist/store/ids.js';
import { openSqliteStore } from '../dist/store/sqlite/sqlite-store.js';
import { knob } from './lib/config.js';
import { makeTempDir, removeTempDir } from './lib/processes.js';
import { emitResult, progress } from './lib/report.js';

const JOBS = knob('SNAPSHOT_JOBS', 100_000, 10_000);
const RUNS_PER_JOB = knob('SNAPSHOT_RUNS_PER_JOB', 5);
const T0 = Date.UTC(2030, 0, 1);
const count = (value) => value.toLocaleString('en-US');

/** One job and one of its runs, made through the store as the daemon makes them. */
async function template(file) {
  const store = openSqliteStore(file);
  const job = await store.createJob(
    {
      id: newId(),
      definition: {
        name: 'template',
        description: 'a job copied to fill the store',
        schedule: { kind: 'every', intervalMs: 60_000, anchorMs: T0 },
        timezone: 'UTC',
        target: { kind: 'command', argv: ['./backup.sh', '--all'], shell: null, cwd: '/srv', env: {} },
        payload: null,
        timeoutMs: null,
        labels: { team: 'bench' },
        retry: DEFAULT_RETRY_POLICY,
        policy: DEFAULT_TIME_POLICY,
        after: [],
        afterAll: [],
        placement: DEFAULT_PLACEMENT,
      },
      owner: 'bench',
      now: T0,
      nextRunAt: T0 + 60_000,
    },
    { id: newId(), at: T0, actor: 'bench', action: 'job.create' },
  );
  await store.insertRun({
    id: newId(),
    jobId: job.id,
    scheduledFor: T0 + 60_000,
    attempt: 1,
    trigger: 'schedule',
    node: '127.0.0.1:7946',
    fence: 1,
    now: T0 + 60_000,
    state: 'scheduled',
    dueAt: T0 + 60_000,
  });
  await store.close();
}

/** Copies the table's rows `copies` times, with the columns in `unique` made distinct per copy. */
function multiply(db, table, copies, unique) {
  const columns = db
    .prepare(`PRAGMA table_info(${table})`)
    .all()
    .map((column) => column.name);
  const select = columns.map((column) => unique[column] ?? column).join(', ');
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${copies})
    INSERT INTO ${table} (${columns.join(', ')}) SELECT ${select} FROM ${table}, n`);
}

const dir = makeTempDir('snapshot');
try {
  const leaderFile = path.join(dir, 'leader.db');
  progress(`filling a store with ${count(JOBS)} jobs and ${count(JOBS * RUNS_PER_JOB)} runs`);
  await template(leaderFile);
  const raw = new Database(leaderFile);
  multiply(raw, 'jobs', JOBS - 1, { id: "id || '-' || i", name: "name || '-' || i" });
  multiply(raw, 'runs', JOBS * RUNS_PER_JOB - 1, {
    id: "id || '-' || i",
    scheduled_for: 'scheduled_for + i',
  });
  raw.close();

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
  started = performance.now();
  member.replica.replaceWithFile(copy);
  const installMs = performance.now() - started;
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
        max: Math.round(installMs),
        notes:
          'replaceWithFile: one synchronous call, so max = how long the member answers nothing (heartbeats, probes, its socket)',
      },
    ],
    figures: { copyMs, copyLoopMaxMs, installMs, megabytes, jobs: JOBS, runs: JOBS * RUNS_PER_JOB },
  });
} finally {
  removeTempDir(dir);
}

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { and, asc, inArray, type SQL } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOB_STATES } from '../../src/core/job.js';
import { jobInState, EXPECTS_SUCCESS, HOLDS_SECRETS } from '../../src/store/job-index-conditions.js';
import { DELETE_AUDIT_BEFORE } from '../../src/store/sqlite/retention-queries.js';
import { openSqliteConnection } from '../../src/store/sqlite/connection.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { prepareStatements, sqliteTables } from '../../src/store/sqlite/statements.js';
import { createJob, newRun, T0 } from './conformance/fixtures.js';
import { describeStoreConformance } from './store-conformance.js';

function makeTempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'sched-store-'));
}

describeStoreConformance('SQLite', async () => {
  const dir = makeTempDir();
  const store = openSqliteStore(path.join(dir, 'sched.db'));
  return {
    store,
    cleanup: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite store on disk', () => {
  let dir: string;
  let file: string;
  const opened: Array<{ close: () => unknown }> = [];

  beforeEach(() => {
    dir = makeTempDir();
    file = path.join(dir, 'sched.db');
  });

  afterEach(async () => {
    for (const handle of opened.splice(0)) await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function connect(options?: Parameters<typeof openSqliteConnection>[1]): Database.Database {
    const connection = openSqliteConnection(file, options);
    opened.push(connection);
    return connection;
  }

  function planOf(connection: Database.Database, query: { sql: string }, ...params: unknown[]): string[] {
    const rows = connection.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...params) as Array<{
      detail: string;
    }>;
    return rows.map((row) => row.detail);
  }

  it('Given a new connection, when its settings are read, then WAL, synchronous FULL, foreign keys, busy timeout, a 32 MiB cache, temp storage in memory and recursive triggers are on', () => {
    const connection = connect();

    expect(connection.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(connection.pragma('synchronous', { simple: true })).toBe(2);
    expect(connection.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(connection.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(connection.pragma('cache_size', { simple: true })).toBe(-32768);
    expect(connection.pragma('temp_store', { simple: true })).toBe(2);
    expect(connection.pragma('recursive_triggers', { simple: true })).toBe(1);
  });

  it('Given synchronous NORMAL is asked for, when the connection opens, then synchronous is NORMAL', () => {
    const connection = connect({ synchronous: 'NORMAL' });

    expect(connection.pragma('synchronous', { simple: true })).toBe(1);
  });

  it('Given a checkpoint every 10,000 pages asked for, when more than SQLite’s default 1,000 pages are written, then the write-ahead log holds them all before it is copied back', () => {
    const connection = connect({ synchronous: 'NORMAL', checkpointEveryPages: 10_000 });
    expect(connection.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
    connection.exec('CREATE TABLE filler (value TEXT)');
    const insert = connection.prepare('INSERT INTO filler (value) VALUES (?)');
    for (let row = 0; row < 3_000; row += 1) insert.run('x'.repeat(2_000));

    const pageSize = connection.pragma('page_size', { simple: true }) as number;
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(1_500 * pageSize);
    expect(connect().pragma('wal_autocheckpoint', { simple: true })).toBe(1_000);
  });

  it('Given the due-jobs query, when SQLite plans it, then it searches the partial due index without scanning or sorting jobs', () => {
    const connection = connect();
    const query = prepareStatements(drizzle({ client: connection })).dueJobs.getQuery();

    const plan = planOf(connection, query, T0, 100);

    expect(plan.join('\n')).toMatch(/SEARCH jobs USING (COVERING )?INDEX jobs_due_idx/);
    expect(plan.some((step) => /SCAN jobs\b/.test(step) || /TEMP B-TREE/.test(step))).toBe(false);
  });

  it('Given the running-runs query, when SQLite plans it, then it searches the partial unfinished index', () => {
    const connection = connect();
    const query = prepareStatements(drizzle({ client: connection })).runningRuns.getQuery();

    expect(planOf(connection, query).join('\n')).toMatch(
      /SEARCH runs USING (COVERING )?INDEX runs_unfinished_idx/,
    );
  });

  it('Given the waiting-runs query, when SQLite plans it, then it searches the partial waiting index in due order', () => {
    const connection = connect();
    const query = prepareStatements(drizzle({ client: connection })).dueRuns.getQuery();

    const plan = planOf(connection, query, T0, 100).join('\n');
    expect(plan).toMatch(/SEARCH runs USING (COVERING )?INDEX runs_waiting_due_idx/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });

  it("Given the count of each state's jobs, when SQLite plans it, then it reads that state's one row of the counts, not the jobs", () => {
    const connection = connect();
    const counts = prepareStatements(drizzle({ client: connection })).countJobsInState;

    for (const state of JOB_STATES) {
      const query = counts[state].getQuery();
      expect(planOf(connection, query, ...query.params)).toEqual([
        'SEARCH job_state_counts USING INDEX sqlite_autoindex_job_state_counts_1 (state=?)',
      ]);
    }
  });

  it('Given a job looked up by name, when SQLite plans it, then a live one comes from the unique live-name index and a cancelled one from the cancelled-name index, so a create writes one name index', () => {
    const connection = connect();
    const statements = prepareStatements(drizzle({ client: connection }));
    const planFor = (query: { sql: string; params: unknown[] }): string =>
      planOf(connection, query, ...query.params.map(() => 'nightly')).join('\n');

    expect(planFor(statements.liveJobByName.getQuery())).toBe(
      'SEARCH jobs USING INDEX jobs_live_name_unique (name=?)',
    );
    expect(planFor(statements.newestCancelledJobByName.getQuery())).toBe(
      'SEARCH jobs USING INDEX jobs_cancelled_name_idx (name=?)',
    );
    expect(planFor(statements.jobByIdOrLiveName.getQuery())).toMatch(
      /INDEX sqlite_autoindex_jobs_1 \(id=\?\)[\s\S]*INDEX jobs_live_name_unique \(name=\?\)/,
    );
    const nameIndexes = connection
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' AND sql LIKE '%`name`%'",
      )
      .all();
    expect(nameIndexes).toEqual([{ name: 'jobs_live_name_unique' }, { name: 'jobs_cancelled_name_idx' }]);
  });

  /** SQLite's plan for a page of jobs filtered by `where`, in id order. */
  function planOfJobsPage(where: SQL | undefined): string[] {
    const connection = connect();
    const { jobs } = sqliteTables;
    const query = drizzle({ client: connection })
      .select()
      .from(jobs)
      .where(where)
      .orderBy(asc(jobs.id))
      .limit(501)
      .toSQL();
    return planOf(connection, query, ...query.params);
  }

  it("Given a page of live jobs with a dead-man's switch, when SQLite plans it, then it walks the switch's partial index in id order", () => {
    const plan = planOfJobsPage(and(inArray(sqliteTables.jobs.state, ['active', 'paused']), EXPECTS_SUCCESS));

    expect(plan).toEqual(['SCAN jobs USING INDEX jobs_expect_success_idx']);
  });

  it("Given a page of one state's jobs holding secret values, when SQLite plans it, then it walks the partial index of those jobs in id order", () => {
    const plan = planOfJobsPage(and(jobInState('active'), HOLDS_SECRETS));

    expect(plan).toEqual(['SCAN jobs USING INDEX jobs_secret_values_idx']);
  });

  it("Given the audit log, when SQLite plans retention's batch of entries past their age, then it searches the index on their time instead of reading the log", () => {
    const connection = connect();

    const plan = planOf(connection, { sql: DELETE_AUDIT_BEFORE }, T0, 500).join('\n');

    expect(plan).toMatch(/SEARCH audit_log USING (COVERING )?INDEX audit_log_at_idx \(at<\?\)/);
    expect(plan).not.toMatch(/SCAN audit_log/);
  });

  it('Given a job and a run, when the store is closed and reopened, then both are still there', async () => {
    const first = openSqliteStore(file);
    const job = await createJob(first, 'nightly');
    const run = await first.insertRun(newRun(job.id));
    await first.close();

    const second = openSqliteStore(file);
    opened.push(second);

    expect(await second.findJob('nightly')).toEqual(job);
    expect(await second.findRun(run.id)).toEqual(run);
  });

  it('Given epochs taken before, when the store is reopened, then the next epoch is still larger', async () => {
    const first = openSqliteStore(file);
    await first.nextFenceEpoch();
    const before = await first.nextFenceEpoch();
    await first.close();

    const second = openSqliteStore(file);
    opened.push(second);

    expect(await second.nextFenceEpoch()).toBe(before + 1);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle as sqliteDrizzle } from 'drizzle-orm/better-sqlite3';
import { migrate as migrateSqlite } from 'drizzle-orm/better-sqlite3/migrator';
import { drizzle as pgDrizzle } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_TIME_POLICY } from '../../src/core/job.js';
import type { Job } from '../../src/core/job.js';
import { MIGRATIONS_TABLE } from '../../src/store/postgres/connection.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteConnection } from '../../src/store/sqlite/connection.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { usePostgres } from '../support/postgres.js';
import type { TestDatabase } from '../support/postgres.js';
import { definition, newRun, T0 } from './conformance/fixtures.js';
import { insertSql, migrationsUpTo, oldRows, oldStyleDefinition } from './migration-fixtures.js';
import type { OldRows } from './migration-fixtures.js';

const postgres = usePostgres();

const RUN_INDEXES = [
  'runs_finished_idx',
  'runs_instant_unique',
  'runs_job_history_idx',
  'runs_job_in_flight_idx',
  'runs_unfinished_idx',
  'runs_waiting_due_idx',
];

/** The job of `oldRows` as the store must read it now: the missing fields at their defaults. */
function upgradedJob(rows: OldRows): Job {
  return {
    ...definition(rows.job.name),
    id: rows.job.id,
    state: 'active',
    version: 1,
    owner: 'alice',
    createdAt: T0,
    updatedAt: T0,
    deletedAt: null,
    nextRunAt: T0 + 120_000,
  };
}

/** What every back end must show after the upgrade: the old rows, the new triggers, the old keys. */
async function expectUpgraded(store: Store, rows: OldRows): Promise<void> {
  expect(await store.findJob('nightly')).toEqual(upgradedJob(rows));
  expect(await store.findRun(rows.run.id)).toEqual({
    id: rows.run.id,
    jobId: rows.job.id,
    jobName: 'nightly',
    scheduledFor: T0 + 60_000,
    attempt: 1,
    trigger: 'retry',
    state: 'failed',
    node: 'node-a',
    fence: 7,
    createdAt: T0 + 60_001,
    startedAt: T0 + 60_002,
    finishedAt: T0 + 61_000,
    pid: null,
    exitCode: 3,
    httpStatus: null,
    signal: null,
    error: 'exit 3',
    stdoutTail: 'out\n',
    stderrTail: 'err\n',
    // Written before runs counted their output: how much was cut is unknown, not zero.
    stdoutBytes: null,
    stderrBytes: null,
    responseHeaders: null,
    retriedBy: null,
    dueAt: T0 + 60_000,
    host: '',
  });
  const catchup = await store.insertRun(
    newRun(rows.job.id, { scheduledFor: T0 + 120_000, trigger: 'catchup' }),
  );
  expect((await store.findRun(catchup.id))?.trigger).toBe('catchup');
  await expect(store.insertRun(newRun(rows.job.id, { scheduledFor: T0 + 60_000 }))).rejects.toMatchObject({
    code: 'INVALID_STATE',
  });
}

const PARTIAL_POLICY = {
  concurrency: 'allow',
  misfire: { policy: { kind: 'all' } },
  dst: { repeat: 'both' },
};
const FILLED_POLICY = {
  ...DEFAULT_TIME_POLICY,
  concurrency: 'allow',
  misfire: { ...DEFAULT_TIME_POLICY.misfire, policy: { kind: 'all' } },
  dst: { ...DEFAULT_TIME_POLICY.dst, repeat: 'both' },
};

describe('SQLite upgrade to time policies', () => {
  let dir: string;
  let file: string;
  const cleanup: Array<() => unknown> = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-upgrade-'));
    file = path.join(dir, 'sched.db');
  });

  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function insert(connection: Database.Database, table: string, row: Record<string, unknown>): void {
    const { text, values } = insertSql(table, row, () => '?');
    connection.prepare(text).run(...values);
  }

  it('Given a database made by the first migration with a job and a run, when the store opens it, then both survive with their indexes and the new triggers are accepted', async () => {
    const { folder } = migrationsUpTo('sqlite', 1);
    cleanup.push(() => fs.rmSync(folder, { recursive: true, force: true }));
    const old = new Database(file);
    old.pragma('foreign_keys = ON');
    migrateSqlite(sqliteDrizzle({ client: old }), { migrationsFolder: folder });
    const rows = oldRows('nightly');
    insert(old, 'jobs', rows.job);
    insert(old, 'runs', rows.run);
    expect(old.prepare(`SELECT name FROM sqlite_master WHERE name = 'occurrences'`).all()).toEqual([]);
    old.close();

    const store = openSqliteStore(file);
    cleanup.push(() => store.close());

    await expectUpgraded(store, rows);
    const check = openSqliteConnection(file);
    cleanup.push(() => check.close());
    const indexes = check
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND sql IS NOT NULL`,
      )
      .pluck()
      .all();
    expect([...indexes].sort()).toEqual(RUN_INDEXES);
    expect(check.pragma('foreign_key_list(runs)')).toMatchObject([
      { table: 'jobs', from: 'job_id', to: 'id' },
    ]);
    expect(check.pragma('foreign_key_check')).toEqual([]);
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(() => insert(check, 'runs', { ...rows.run, id: 'bogus', attempt: 9, trigger: 'bogus' })).toThrow(
      /CHECK constraint failed: runs_trigger_check/,
    );
  });

  it('Given job rows written before time policies, one without a policy and one with part of one, when read, then the missing fields are the defaults', async () => {
    const connection = openSqliteConnection(file);
    cleanup.push(() => connection.close());
    const bare = oldRows('nightly');
    const partial = oldRows('partial');
    insert(connection, 'jobs', bare.job);
    insert(connection, 'jobs', {
      ...partial.job,
      definition: JSON.stringify({ ...oldStyleDefinition('partial'), policy: PARTIAL_POLICY }),
    });
    const store = openSqliteStore(file);
    cleanup.push(() => store.close());

    expect(await store.findJob(bare.job.id)).toEqual(upgradedJob(bare));
    expect(await store.findJob(partial.job.id)).toMatchObject({
      policy: FILLED_POLICY,
      after: [],
      afterAll: [],
    });
    expect((await store.listJobs({ limit: 10 })).items.map((job) => job.policy)).toEqual([
      DEFAULT_TIME_POLICY,
      FILLED_POLICY,
    ]);
  });
});

describe('PostgreSQL upgrade to time policies', () => {
  let database: TestDatabase | undefined;
  const cleanup: Array<() => unknown> = [];

  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    await database?.drop();
    database = undefined;
  });

  async function connect(url: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    cleanup.push(() => client.end());
    return client;
  }

  async function insert(client: pg.Client, table: string, row: Record<string, unknown>): Promise<void> {
    const { text, values } = insertSql(table, row, (index) => `$${index + 1}`);
    await client.query(text, values);
  }

  /** Output tails are bytea in PostgreSQL. */
  const pgRun = (run: OldRows['run']) => ({
    ...run,
    stdout_tail: Buffer.from(run.stdout_tail),
    stderr_tail: Buffer.from(run.stderr_tail),
  });

  it('Given a database made by the first migration with a job and a run, when the store opens it, then both survive and the new triggers are accepted', async () => {
    database = await postgres.freshDatabase();
    const { folder } = migrationsUpTo('postgres', 1);
    cleanup.push(() => fs.rmSync(folder, { recursive: true, force: true }));
    const client = await connect(database.url);
    await migratePg(pgDrizzle({ client }), { migrationsFolder: folder, ...MIGRATIONS_TABLE });
    const rows = oldRows('nightly');
    await insert(client, 'jobs', rows.job);
    await insert(client, 'runs', pgRun(rows.run));
    expect((await client.query(`SELECT to_regclass('occurrences') AS t`)).rows[0]).toEqual({ t: null });

    const store = await openPostgresStore(database.url, { poolSize: 2 });
    cleanup.push(() => store.close());

    await expectUpgraded(store, rows);
    await expect(
      insert(client, 'runs', { ...pgRun(rows.run), id: 'bogus', attempt: 9, trigger: 'bogus' }),
    ).rejects.toThrow(/runs_trigger_check/);
    const journal = `${MIGRATIONS_TABLE.migrationsSchema}.${MIGRATIONS_TABLE.migrationsTable}`;
    const files = JSON.parse(
      fs.readFileSync(new URL('../../drizzle/postgres/meta/_journal.json', import.meta.url), 'utf8'),
    );
    expect((await client.query(`SELECT count(*)::int AS n FROM ${journal}`)).rows[0]).toEqual({
      n: files.entries.length,
    });
  });

  it('Given job rows written before time policies, one without a policy and one with part of one, when read, then the missing fields are the defaults', async () => {
    database = await postgres.migratedDatabase();
    const client = await connect(database.url);
    const bare = oldRows('nightly');
    const partial = oldRows('partial');
    await insert(client, 'jobs', bare.job);
    await insert(client, 'jobs', {
      ...partial.job,
      definition: JSON.stringify({ ...oldStyleDefinition('partial'), policy: PARTIAL_POLICY }),
    });
    const store = await openPostgresStore(database.url, { poolSize: 2 });
    cleanup.push(() => store.close());

    expect(await store.findJob(bare.job.id)).toEqual(upgradedJob(bare));
    expect(await store.findJob(partial.job.id)).toMatchObject({
      policy: FILLED_POLICY,
      after: [],
      afterAll: [],
    });
    expect((await store.listJobs({ limit: 10 })).items.map((job) => job.policy)).toEqual([
      DEFAULT_TIME_POLICY,
      FILLED_POLICY,
    ]);
  });
});

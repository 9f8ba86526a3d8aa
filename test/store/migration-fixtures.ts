import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle as sqliteDrizzle } from 'drizzle-orm/better-sqlite3';
import { migrate as migrateSqlite } from 'drizzle-orm/better-sqlite3/migrator';
import { drizzle as pgDrizzle } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';
import { MIGRATIONS_TABLE } from '../../src/store/postgres/connection.js';
import type { JobDefinition } from '../../src/core/job.js';
import { newId } from '../../src/store/ids.js';
import { definition, T0 } from './conformance/fixtures.js';

const DRIZZLE = fileURLToPath(new URL('../../drizzle', import.meta.url));

/**
 * A copy of one dialect's migrations folder whose journal lists only the first `count` migrations, so the
 * migrator builds the schema as an older release left it. The caller removes `folder`.
 */
export function migrationsUpTo(dialect: 'sqlite' | 'postgres', count: number): { folder: string } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `sched-migrations-${dialect}-`));
  fs.cpSync(path.join(DRIZZLE, dialect), folder, { recursive: true });
  const journalFile = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: unknown[] };
  journal.entries = journal.entries.slice(0, count);
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return { folder };
}

/** A definition as a release before time policies and dependencies wrote it: without those fields. */
export function oldStyleDefinition(name: string): Omit<JobDefinition, 'policy' | 'after' | 'afterAll'> {
  const { policy: _policy, after: _after, afterAll: _afterAll, ...old } = definition(name);
  return old;
}

/** A job row and a finished run row as a release before time policies stored them (column names as in SQL). */
export function oldRows(name: string) {
  const jobId = newId();
  return {
    job: {
      id: jobId,
      name,
      state: 'active',
      definition: JSON.stringify(oldStyleDefinition(name)),
      labels: '{}',
      owner: 'alice',
      version: 1,
      created_at: T0,
      updated_at: T0,
      next_run_at: T0 + 120_000,
    },
    run: {
      id: newId(),
      job_id: jobId,
      scheduled_for: T0 + 60_000,
      attempt: 1,
      trigger: 'retry',
      state: 'failed',
      node: 'node-a',
      fence: 7,
      created_at: T0 + 60_001,
      started_at: T0 + 60_002,
      finished_at: T0 + 61_000,
      exit_code: 3,
      error: 'exit 3',
      stdout_tail: 'out\n',
      stderr_tail: 'err\n',
      due_at: T0 + 60_000,
    },
  };
}

export type OldRows = ReturnType<typeof oldRows>;

/** INSERT … VALUES for one row, with `?` or `$n` placeholders. */
export function insertSql(
  table: string,
  row: Record<string, unknown>,
  placeholder: (index: number) => string,
): { text: string; values: unknown[] } {
  const columns = Object.keys(row);
  return {
    text: `INSERT INTO ${table} (${columns.map((column) => `"${column}"`).join(', ')}) VALUES (${columns
      .map((_, index) => placeholder(index))
      .join(', ')})`,
    values: Object.values(row),
  };
}

/** Rows to write into an old schema, in order: [table, row with its SQL column names]. */
export type TableRow = [string, Record<string, unknown>];

/**
 * A SQLite file in a new temp folder made by the first `count` migrations, holding `rows`; the steps that
 * remove what it made are pushed onto `cleanup`.
 */
export function oldSqliteDatabase(count: number, rows: TableRow[], cleanup: (() => unknown)[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-old-sqlite-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'sched.db');
  const { folder } = migrationsUpTo('sqlite', count);
  cleanup.push(() => fs.rmSync(folder, { recursive: true, force: true }));
  const old = new Database(file);
  try {
    old.pragma('foreign_keys = ON');
    migrateSqlite(sqliteDrizzle({ client: old }), { migrationsFolder: folder });
    for (const [table, row] of rows) {
      const { text, values } = insertSql(table, row, () => '?');
      old.prepare(text).run(...values);
    }
  } finally {
    old.close();
  }
  return file;
}

/** Brings the database of `client` to the first `count` migrations and writes `rows` into it. */
export async function oldPostgresDatabase(
  client: pg.Client,
  count: number,
  rows: TableRow[],
  cleanup: (() => unknown)[],
): Promise<void> {
  const { folder } = migrationsUpTo('postgres', count);
  cleanup.push(() => fs.rmSync(folder, { recursive: true, force: true }));
  await migratePg(pgDrizzle({ client }), { migrationsFolder: folder, ...MIGRATIONS_TABLE });
  for (const [table, row] of rows) {
    const { text, values } = insertSql(table, row, (index) => `$${index + 1}`);
    await client.query(text, values);
  }
}

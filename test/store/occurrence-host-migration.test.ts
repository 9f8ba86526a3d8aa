import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteConnection } from '../../src/store/sqlite/connection.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { usePostgres } from '../support/postgres.js';
import type { TestDatabase } from '../support/postgres.js';
import { T0 } from './conformance/fixtures.js';
import { oldPostgresDatabase, oldRows, oldSqliteDatabase } from './migration-fixtures.js';
import type { OldRows, TableRow } from './migration-fixtures.js';

const postgres = usePostgres();

/** Both dialects' migrations before occurrences had a host (sqlite 0000–0011, postgres 0000–0011). */
const BEFORE_HOST = 12;
const MINUTE = 60_000;

/** Ledger rows as the release before hosts wrote them: one plain instant, one with a skipped wall time. */
function oldOccurrences(jobId: string) {
  const row = {
    job_id: jobId,
    scheduled_for: T0 + MINUTE,
    wall: '',
    outcome: 'skipped-overlap',
    reason: 'on node node-a: an earlier run was still running',
    node: 'node-a',
    decided_at: T0 + MINUTE + 5,
  };
  return [row, { ...row, wall: '2030-01-01T00:00:30', outcome: 'dst-skipped', reason: 'clocks' }];
}

/** The rows to write, in order: a job, then its ledger rows. */
function oldTableRows(rows: OldRows): TableRow[] {
  return [['jobs', rows.job], ...oldOccurrences(rows.job.id).map((row): TableRow => ['occurrences', row])];
}

/** The old rows read back as entries decided once, and a second node's entry of their instant kept beside them. */
async function expectUpgraded(store: Store, jobId: string): Promise<void> {
  const before = await store.listOccurrences({ jobId, order: 'asc', limit: 10 });
  expect(before.map((entry) => [entry.scheduledFor, entry.wall, entry.outcome, entry.node])).toEqual([
    [T0 + MINUTE, null, 'skipped-overlap', 'node-a'],
    [T0 + MINUTE, '2030-01-01T00:00:30', 'dst-skipped', 'node-a'],
  ]);
  expect(before.every((entry) => entry.host === undefined)).toBe(true);

  const skip = {
    jobId,
    scheduledFor: T0 + MINUTE,
    outcome: 'skipped-overlap' as const,
    decidedAt: T0 + MINUTE,
  };
  await store.recordOccurrences([
    { ...skip, reason: 'again', node: 'node-b' },
    { ...skip, reason: 'on b', node: 'node-b', host: 'node-b' },
  ]);
  const after = await store.listOccurrences({ jobId, order: 'asc', limit: 10 });
  expect(after.map((entry) => [entry.wall, entry.host, entry.reason])).toEqual([
    [null, undefined, 'on node node-a: an earlier run was still running'],
    [null, 'node-b', 'on b'],
    ['2030-01-01T00:00:30', undefined, 'clocks'],
  ]);
}

describe('Upgrade to ledger entries keyed by host', () => {
  const cleanup: Array<() => unknown> = [];
  let database: TestDatabase | undefined;

  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    await database?.drop();
    database = undefined;
  });

  it("Given a SQLite database made by the migrations before hosts with ledger rows, when the store opens it, then the rows survive with host '' and the table keeps its key, index and checks", async () => {
    const rows = oldRows('nightly');
    const file = oldSqliteDatabase(BEFORE_HOST, oldTableRows(rows), cleanup);

    const store = openSqliteStore(file);
    cleanup.push(() => store.close());

    await expectUpgraded(store, rows.job.id);
    const check = openSqliteConnection(file);
    cleanup.push(() => check.close());
    const key = (check.pragma('table_info(occurrences)') as Array<{ name: string; pk: number }>)
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name);
    expect(key).toEqual(['job_id', 'scheduled_for', 'wall', 'host']);
    expect(
      check
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'occurrences' AND sql IS NOT NULL`,
        )
        .pluck()
        .all(),
    ).toEqual(['occurrences_decided_idx']);
    expect(check.pragma('foreign_key_check')).toEqual([]);
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it("Given a PostgreSQL database made by the migrations before hosts with ledger rows, when the store opens it, then the rows survive with host '' and the key includes host", async () => {
    database = await postgres.freshDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    cleanup.push(() => client.end());
    const rows = oldRows('nightly');
    await oldPostgresDatabase(client, BEFORE_HOST, oldTableRows(rows), cleanup);

    const store = await openPostgresStore(database.url, { poolSize: 2 });
    cleanup.push(() => store.close());

    await expectUpgraded(store, rows.job.id);
    const key = await client.query<{ column: string }>(
      `SELECT a.attname AS column FROM pg_index i
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
        WHERE i.indrelid = 'occurrences'::regclass AND i.indisprimary
        ORDER BY array_position(i.indkey, a.attnum)`,
    );
    expect(key.rows.map((row) => row.column)).toEqual(['job_id', 'scheduled_for', 'wall', 'host']);
  });
});

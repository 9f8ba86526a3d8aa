import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobDefinition } from '../../src/core/job.js';
import { newId } from '../../src/store/ids.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { usePostgres } from '../support/postgres.js';
import { definition, stamp, T0 } from './conformance/fixtures.js';
import { oldPostgresDatabase, oldSqliteDatabase, type TableRow } from './migration-fixtures.js';

const postgres = usePostgres();

/** The migrations before the jobs' index flags: SQLite 0000–0015, PostgreSQL 0000–0014. */
const BEFORE_FLAGS = { sqlite: 16, postgres: 15 };

const command = (env: Record<string, string>) => ({
  target: { kind: 'command' as const, argv: ['true'], shell: null, cwd: null, env },
});

/** Jobs as an older release stored them, each named for what its definition holds. */
const OLD_JOBS: Record<string, Partial<JobDefinition>> = {
  plain: {},
  watched: { alerts: { expectSuccessEveryMs: 60_000 } } as Partial<JobDefinition>,
  'switch-off': { alerts: { expectSuccessEveryMs: null } } as Partial<JobDefinition>,
  env: command({ TOKEN: 'sealed:v2:k:x' }),
  payload: { payload: { to: 'ops' } },
};

function oldJobRows(): TableRow[] {
  return Object.entries(OLD_JOBS).map(([name, overrides]): TableRow => [
    'jobs',
    {
      id: newId(),
      name,
      state: 'active',
      definition: JSON.stringify(definition(name, overrides)),
      labels: '{}',
      owner: 'alice',
      version: 1,
      created_at: T0,
      updated_at: T0,
      next_run_at: T0 + 60_000,
    },
  ]);
}

/** What the upgraded store lists by the two flags, then after a change that drops one. */
async function expectFlagged(store: Store): Promise<void> {
  const names = async (query: { expectingSuccess?: boolean; holdingSecrets?: boolean }) =>
    (await store.listJobs({ limit: 10, ...query })).items.map((job) => job.name).sort();
  expect(await names({ expectingSuccess: true })).toEqual(['watched']);
  expect(await names({ holdingSecrets: true })).toEqual(['env', 'payload']);

  const env = (await store.findJob('env'))!;
  const change = { definition: definition('env', command({})) };
  await store.updateJob(env.id, env.version, change, stamp('job.update', T0 + 1));
  expect(await names({ holdingSecrets: true })).toEqual(['payload']);
}

describe('Upgrade to index flags on jobs', () => {
  /** What each case made, removed in the reverse order. */
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it("Given a SQLite database of the release before the flags with jobs that set a dead-man's switch or hold secrets, when the store opens it, then each job's flags are set from its definition", async () => {
    const file = oldSqliteDatabase(BEFORE_FLAGS.sqlite, oldJobRows(), cleanup);

    const store = openSqliteStore(file);
    cleanup.push(() => store.close());

    await expectFlagged(store);
  });

  it("Given a PostgreSQL database of the release before the flags with jobs that set a dead-man's switch or hold secrets, when the store opens it, then each job's flags are set from its definition", async () => {
    const database = await postgres.freshDatabase();
    cleanup.push(() => database.drop());
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    cleanup.push(() => client.end());
    await oldPostgresDatabase(client, BEFORE_FLAGS.postgres, oldJobRows(), cleanup);

    const store = await openPostgresStore(database.url, { poolSize: 2 });
    cleanup.push(() => store.close());

    await expectFlagged(store);
  });
});

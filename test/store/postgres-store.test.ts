import { readFileSync } from 'node:fs';
import { and, asc, fillPlaceholders, inArray, type SQL } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Job } from '../../src/core/job.js';
import { assignShards } from '../../src/core/cluster/rendezvous.js';
import { PostgresClusterStore } from '../../src/store/postgres/cluster-store.js';
import { MIGRATIONS_TABLE, openPostgresPool } from '../../src/store/postgres/connection.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { jobInState, EXPECTS_SUCCESS, HOLDS_SECRETS } from '../../src/store/job-index-conditions.js';
import { postgresTables, prepareStatements } from '../../src/store/postgres/statements.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Fire, FiredInstant } from '../../src/store/store.js';
import { usePostgres } from '../support/postgres.js';
import type { TestDatabase } from '../support/postgres.js';
import { createJob, newRun, outcome, stamp, T0 } from './conformance/fixtures.js';
import { describeStoreConformance } from './store-conformance.js';

const MINUTE = 60_000;
const postgres = usePostgres();

describeStoreConformance('PostgreSQL', async () => {
  const database = await postgres.migratedDatabase();
  const store = await openPostgresStore(database.url, { poolSize: 4 });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await database.drop();
    },
  };
});

/** The fire of the job's instant `instant` minutes after T0 from `node`, its run asked to start now. */
function fireAt(jobId: string, instant: number, node: string, fence?: Fire['fence']): Fire {
  return {
    jobId,
    runs: [newRun(jobId, { scheduledFor: T0 + instant * MINUTE, node, state: 'running' })],
    occurrences: [],
    expectedNextRunAt: T0 + instant * MINUTE,
    nextRunAt: T0 + (instant + 1) * MINUTE,
    fence,
  };
}

/** As the scheduler does: a batch refused as a whole is recorded one fire at a time. */
async function fireTogether(store: PostgresStore, fires: Fire[]): Promise<(FiredInstant | null)[]> {
  try {
    return await store.recordFires(fires);
  } catch {
    return Promise.all(fires.map((fire) => store.recordFire(fire)));
  }
}

describe('PostgreSQL store on a shared database', () => {
  let database: TestDatabase;
  const opened: Array<{ close: () => Promise<void> }> = [];

  afterEach(async () => {
    for (const handle of opened.splice(0)) await handle.close();
    await database?.drop();
  });

  async function open(url: string): Promise<PostgresStore> {
    const store = await openPostgresStore(url, { poolSize: 4 });
    opened.push(store);
    return store;
  }

  async function connect(url: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    opened.push({ close: () => client.end() });
    return client;
  }

  it('Given an empty database, when three daemons open it at once, then all open and one set of tables is migrated once', async () => {
    database = await postgres.freshDatabase();

    const opening = await Promise.allSettled([open(database.url), open(database.url), open(database.url)]);

    expect(opening.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const stores = opening.map((result) => (result as PromiseFulfilledResult<PostgresStore>).value);

    const client = await connect(database.url);
    const tables = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    );
    expect(tables.rows.map((row) => row.table_name)).toEqual([
      'api_tokens',
      'audit_log',
      'cluster_lease',
      'cluster_map',
      'cluster_nodes',
      'deliveries',
      'events',
      'idempotency_keys',
      'job_dependencies',
      'jobs',
      'meta',
      'occurrences',
      'overdue_jobs',
      'runs',
    ]);
    const journal = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${MIGRATIONS_TABLE.migrationsSchema}.${MIGRATIONS_TABLE.migrationsTable}`,
    );
    expect(journal.rows[0]?.n).toBe(postgresMigrationCount());
    const job = await createJob(stores[0]!, 'nightly');
    expect(await stores[2]!.findJob('nightly')).toEqual(job);
  });

  it('Given two daemons racing to fire the same instants, when both fire each one, then each instant has exactly one run', async () => {
    database = await postgres.migratedDatabase();
    const daemons = [await open(database.url), await open(database.url)];
    const job = await createJob(daemons[0]!, 'nightly', { nextRunAt: T0 + MINUTE });

    for (let instant = 1; instant <= 20; instant += 1) {
      const fired = await Promise.all(
        daemons.map((store, node) =>
          store.recordFire({
            jobId: job.id,
            occurrences: [],
            runs: [newRun(job.id, { scheduledFor: T0 + instant * MINUTE, node: `node-${node}` })],
            expectedNextRunAt: T0 + instant * MINUTE,
            nextRunAt: T0 + (instant + 1) * MINUTE,
          }),
        ),
      );

      expect(fired.filter((run) => run !== null)).toHaveLength(1);
    }
    const runs = await daemons[0]!.listRuns({ limit: 100, jobId: job.id });
    expect(new Set(runs.items.map((run) => run.scheduledFor)).size).toBe(20);
    expect(runs.items).toHaveLength(20);
    expect((await daemons[1]!.findJob(job.id))?.nextRunAt).toBe(T0 + 21 * MINUTE);
  });

  it('Given two daemons racing to fire the same instants of ten jobs in batches, when both fire each one, then each instant has exactly one run', async () => {
    database = await postgres.migratedDatabase();
    const daemons = [await open(database.url), await open(database.url)];
    const jobs: Job[] = [];
    for (let index = 0; index < 10; index += 1)
      jobs.push(await createJob(daemons[0]!, `job-${index}`, { nextRunAt: T0 + MINUTE }));

    for (let instant = 1; instant <= 10; instant += 1) {
      // Each daemon takes the jobs in another order, so their row locks cross.
      const fired = await Promise.all(
        daemons.map((store, node) => {
          const order = node === 0 ? jobs : [...jobs].reverse();
          return fireTogether(
            store,
            order.map((job) => fireAt(job.id, instant, `node-${node}`)),
          );
        }),
      );

      expect(fired.flat().filter((one) => one !== null)).toHaveLength(jobs.length);
    }
    for (const job of jobs) {
      const runs = (await daemons[1]!.listRuns({ limit: 100, jobId: job.id })).items;
      expect(runs.map((run) => run.scheduledFor).sort()).toEqual(
        Array.from({ length: 10 }, (_, index) => T0 + (index + 1) * MINUTE),
      );
      expect((await daemons[0]!.findJob(job.id))?.nextRunAt).toBe(T0 + 11 * MINUTE);
    }
  });

  it('Given a job row locked by another transaction, when a fire waits for it alone or in a batch, then its run is stamped started after the lock was let go, not at the wake-up', async () => {
    database = await postgres.migratedDatabase();
    const store = await open(database.url);
    const holder = await connect(database.url);
    const jobs = [
      await createJob(store, 'alone', { nextRunAt: T0 + MINUTE }),
      await createJob(store, 'batched', { nextRunAt: T0 + MINUTE }),
    ];
    const wokenAt = Date.now();
    const stamped = (fire: Fire): Fire => ({
      ...fire,
      runs: fire.runs.map((run) => ({ ...run, now: wokenAt })),
      writtenAt: () => Date.now(),
    });

    for (const [index, job] of jobs.entries()) {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM jobs WHERE id = $1 FOR UPDATE', [job.id]);
      const fired =
        index === 0
          ? store.recordFire(stamped(fireAt(job.id, 1, 'a')))
          : store.recordFires([stamped(fireAt(job.id, 1, 'a'))]).then((all) => all[0]!);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const releasedAt = Date.now();
      await holder.query('COMMIT');

      const run = (await fired)!.runs[0]!;
      expect(run.startedAt).toBeGreaterThanOrEqual(releasedAt);
      expect((await store.findRun(run.id))?.startedAt).toBe(run.startedAt);
    }
  });

  it('Given a shard map replaced since the node read it, when the node fires a batch from it, then it is refused as fenced and writes nothing', async () => {
    database = await postgres.migratedDatabase();
    const store = await open(database.url);
    const pool = await openPostgresPool(database.url, { poolSize: 2 });
    opened.push({ close: () => pool.end() });
    const cluster = new PostgresClusterStore(pool);
    const assignment = { nodes: [{ id: 'a', labels: {} }], owners: assignShards(['a']) };
    const first = await cluster.acquireOrRenewLease('a', 60_000);
    await cluster.publishMap('a', first.term, assignment);
    const old = (await cluster.loadMap())!;
    await cluster.releaseLease('a', first.term);
    const second = await cluster.acquireOrRenewLease('a', 60_000);
    await cluster.publishMap('a', second.term, assignment);
    const current = (await cluster.loadMap())!;
    const jobs = [
      await createJob(store, 'a', { nextRunAt: T0 + MINUTE }),
      await createJob(store, 'b', { nextRunAt: T0 + MINUTE }),
    ];
    const fenceOf = (map: typeof old) => ({ term: map.term, publishedAt: map.publishedAt });

    await expect(
      store.recordFires(jobs.map((job) => fireAt(job.id, 1, 'a', fenceOf(old)))),
    ).rejects.toMatchObject({ code: 'FENCED' });
    expect((await store.listRuns({ limit: 10 })).items).toEqual([]);
    expect((await store.findJob(jobs[0]!.id))?.nextRunAt).toBe(T0 + MINUTE);

    const fired = await store.recordFires(jobs.map((job) => fireAt(job.id, 1, 'a', fenceOf(current))));
    expect(fired.map((one) => one?.runs.length)).toEqual([1, 1]);
  });

  it('Given two daemons changing the same job and finishing the same run at once, when both try, then one wins and the other gets the error SQLite would give', async () => {
    database = await postgres.migratedDatabase();
    const daemons = [await open(database.url), await open(database.url)];
    const job = await createJob(daemons[0]!, 'nightly');
    const run = await daemons[0]!.insertRun(newRun(job.id, { state: 'running' }));

    const updates = await Promise.allSettled(
      daemons.map((store, index) =>
        store.updateJob(job.id, 1, { nextRunAt: T0 + index }, stamp('job.update', T0 + index)),
      ),
    );
    const finishes = await Promise.allSettled(daemons.map((store) => store.finishRun(run.id, outcome())));

    for (const results of [updates, finishes])
      expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(updates.find((result) => result.status === 'rejected')).toMatchObject({
      reason: { code: 'VERSION_CONFLICT', details: { expected: 1, actual: 2 } },
    });
    expect(finishes.find((result) => result.status === 'rejected')).toMatchObject({
      reason: { code: 'INVALID_STATE' },
    });
    expect(await daemons[1]!.findJob(job.id)).toMatchObject({ version: 2 });
    expect((await daemons[1]!.listAudit({ limit: 10, jobId: job.id })).items).toHaveLength(2);
  });

  it('Given three daemons with five callers each taking fence epochs at once, when all are in, then every epoch is distinct and grows for each caller', async () => {
    database = await postgres.migratedDatabase();
    const daemons = [await open(database.url), await open(database.url), await open(database.url)];
    const callers = daemons.flatMap((store) => Array.from({ length: 5 }, () => store));

    const sequences = await Promise.all(
      callers.map(async (store) => {
        const epochs: number[] = [];
        for (let index = 0; index < 8; index += 1) epochs.push(await store.nextFenceEpoch());
        return epochs;
      }),
    );

    for (const epochs of sequences) expect(epochs).toEqual([...epochs].sort((a, b) => a - b));
    const all = sequences.flat().sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: 120 }, (_, index) => index + 1));
  });

  it('Given 20,000 jobs due over a day, when PostgreSQL plans the due-jobs query for the next minute, then it walks the partial due index in order without sorting', async () => {
    database = await postgres.migratedDatabase();
    const client = await connect(database.url);
    // 16,000 active jobs due evenly over the day; 2,000 cancelled and 2,000 paused (due, but not active).
    await client.query(`
      INSERT INTO jobs (id, name, state, deleted_at, next_run_at, definition, labels, owner, version, created_at, updated_at)
      SELECT 'job-' || lpad(g::text, 6, '0'), 'job-' || g,
             CASE WHEN g % 10 < 8 THEN 'active' WHEN g % 10 = 8 THEN 'cancelled' ELSE 'paused' END,
             CASE WHEN g % 10 = 8 THEN ${T0} END,
             CASE WHEN g % 10 < 8 THEN ${T0} + g * 86400000::int8 / 20000 WHEN g % 10 = 9 THEN ${T0} END,
             '{}', '{}', 'alice', 1, ${T0}, ${T0}
      FROM generate_series(1, 20000) AS g`);
    await client.query('ANALYZE jobs');

    const query = prepareStatements(drizzle({ client })).dueJobs.getQuery();
    const plan = async (explain: string, params: unknown[]) => {
      const { rows } = await client.query(`EXPLAIN (${explain}) ${query.sql}`, params);
      return JSON.stringify(rows[0]?.['QUERY PLAN']);
    };
    const custom = await plan(
      'FORMAT JSON',
      fillPlaceholders(query.params, { until: T0 + MINUTE, limit: 100 }),
    );
    // After five runs a prepared statement may switch to this plan, made without the values.
    const generic = await plan('GENERIC_PLAN, FORMAT JSON', []);

    for (const chosen of [custom, generic]) {
      expect(chosen).toMatch(/"Node Type":"Index Scan".*"Index Name":"jobs_due_idx"/);
      expect(chosen).not.toMatch(/"Node Type":"(Seq Scan|Sort|Bitmap Heap Scan)"/);
    }
  });

  it('Given 6,500 jobs of which 2,000 are cancelled (several of one name), when PostgreSQL plans the newest cancelled job of a name, then it reads the cancelled-name index, and the only name indexes are it and the live one', async () => {
    database = await postgres.migratedDatabase();
    const client = await connect(database.url);
    await client.query(`
      INSERT INTO jobs (id, name, state, deleted_at, next_run_at, definition, labels, owner, version, created_at, updated_at)
      SELECT 'job-' || lpad(g::text, 6, '0'), 'job-' || (g % 5000),
             CASE WHEN g % 10 = 8 THEN 'cancelled' ELSE 'active' END,
             CASE WHEN g % 10 = 8 THEN ${T0} END, NULL, '{}', '{}', 'alice', 1, ${T0}, ${T0}
      FROM generate_series(1, 20000) AS g WHERE g % 10 = 8 OR g <= 5000`);
    await client.query('ANALYZE jobs');

    const query = prepareStatements(drizzle({ client })).newestCancelledJobByName.getQuery();
    const { rows } = await client.query(
      `EXPLAIN (FORMAT JSON) ${query.sql}`,
      fillPlaceholders(query.params, { name: 'job-8' }),
    );
    const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
    expect(plan).toMatch(/"Index Name":"jobs_cancelled_name_idx"/);
    expect(plan).not.toMatch(/"Node Type":"Seq Scan"/);
    const { rows: indexes } = await client.query(
      "SELECT indexname FROM pg_indexes WHERE tablename = 'jobs' AND indexdef LIKE '%(name%' ORDER BY indexname",
    );
    expect(indexes.map((row: { indexname: string }) => row.indexname)).toEqual([
      'jobs_cancelled_name_idx',
      'jobs_live_name_unique',
    ]);
  });

  /**
   * The plan PostgreSQL makes for a page of 20,000 active jobs filtered by `where`, where one in 1,000 jobs
   * has `flag` (a column the store derives from the definition) set.
   */
  async function planOfRareJobsPage(
    flag: 'expects_success' | 'holds_secrets',
    where: SQL | undefined,
  ): Promise<string> {
    database = await postgres.migratedDatabase();
    const client = await connect(database.url);
    await client.query(`
      INSERT INTO jobs (id, name, state, deleted_at, next_run_at, definition, labels, owner, version, created_at,
                        updated_at, ${flag})
      SELECT 'job-' || lpad(g::text, 6, '0'), 'job-' || g, 'active', NULL, ${T0}, '{}', '{}', 'alice', 1, ${T0},
             ${T0}, g % 1000 = 0
      FROM generate_series(1, 20000) AS g`);
    await client.query('ANALYZE jobs');
    const { jobs } = postgresTables;
    const query = drizzle({ client })
      .select()
      .from(jobs)
      .where(where)
      .orderBy(asc(jobs.id))
      .limit(501)
      .toSQL();
    const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${query.sql}`, query.params);
    return JSON.stringify(rows[0]?.['QUERY PLAN']);
  }

  it("Given 20,000 jobs of which 20 set a dead-man's switch, when PostgreSQL plans a page of those live ones, then it scans the switch's partial index", async () => {
    const plan = await planOfRareJobsPage(
      'expects_success',
      and(inArray(postgresTables.jobs.state, ['active', 'paused']), EXPECTS_SUCCESS),
    );

    expect(plan).toMatch(/"Index Name":"jobs_expect_success_idx"/);
    expect(plan).not.toMatch(/"Node Type":"Seq Scan"/);
  });

  it("Given 20,000 jobs of which 20 hold secret values, when PostgreSQL plans a page of one state's, then it scans the partial index of those jobs", async () => {
    const plan = await planOfRareJobsPage('holds_secrets', and(jobInState('active'), HOLDS_SECRETS));

    expect(plan).toMatch(/"Index Name":"jobs_secret_values_idx"/);
    expect(plan).not.toMatch(/"Node Type":"Seq Scan"/);
  });

  it("Given 20,000 audit entries none past their age, when PostgreSQL plans retention's batch, then it scans the index on their time instead of the log", async () => {
    database = await postgres.migratedDatabase();
    const client = await connect(database.url);
    await client.query(`
      INSERT INTO audit_log (id, at, actor, action, job_id, before, after)
      SELECT 'audit-' || lpad(g::text, 6, '0'), ${T0} + g, 'alice', 'job.create', NULL, NULL, '{}'
      FROM generate_series(1, 20000) AS g`);
    await client.query('ANALYZE audit_log');

    const { rows } = await client.query(
      'EXPLAIN (FORMAT JSON) SELECT id FROM audit_log WHERE at < $1 LIMIT 500 FOR UPDATE SKIP LOCKED',
      [T0],
    );
    const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);

    expect(plan).toMatch(/"Index Name":"audit_log_at_idx"/);
    expect(plan).not.toMatch(/"Node Type":"Seq Scan"/);
  });

  it('Given output with NUL bytes, when the run finishes, then the tails come back unchanged and a NUL in the error is replaced', async () => {
    database = await postgres.migratedDatabase();
    const store = await open(database.url);
    const job = await createJob(store, 'binary');
    const run = await store.insertRun(newRun(job.id, { state: 'running' }));

    const { run: finished } = await store.finishRun(
      run.id,
      outcome({ stdoutTail: 'a\u0000b\\x00', stderrTail: '\u0000', error: 'bad\u0000byte' }),
    );

    expect(finished).toMatchObject({
      stdoutTail: 'a\u0000b\\x00',
      stderrTail: '\u0000',
      error: 'bad\uFFFDbyte',
    });
    expect(await store.findRun(run.id)).toEqual(finished);
  });

  it('Given a job and epochs taken, when the store is closed and reopened, then the job is there and epochs keep growing', async () => {
    database = await postgres.migratedDatabase();
    const first = await openPostgresStore(database.url);
    const job = await createJob(first, 'nightly');
    const epoch = await first.nextFenceEpoch();
    await first.close();
    await first.close();

    const second = await open(database.url);

    expect(await second.findJob('nightly')).toEqual(job);
    expect(await second.nextFenceEpoch()).toBe(epoch + 1);
  });

  it('Given a database that became read-only, when the store is pinged, then the ping fails', async () => {
    database = await postgres.freshDatabase();
    await (await open(database.url)).ping();
    const client = await connect(database.url);
    const name = client.escapeIdentifier(decodeURIComponent(new URL(database.url).pathname.slice(1)));
    await client.query(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);

    const readOnly = await open(database.url);

    await expect(readOnly.ping()).rejects.toThrow(/read-only/);
  });
});

describe('PostgreSQL store retention', () => {
  let database: TestDatabase;
  let store: PostgresStore;

  afterEach(async () => {
    await store?.close();
    await database?.drop();
  });

  async function finishedRuns(jobId: string, count: number, finishedAt: (index: number) => number) {
    for (let index = 0; index < count; index += 1) {
      const run = await store.insertRun(newRun(jobId, { scheduledFor: T0 + index, state: 'running' }));
      await store.finishRun(run.id, outcome({ finishedAt: finishedAt(index) }));
    }
  }

  it('Given old and new finished runs, when runs finished before a time are pruned in batches, then only the old ones go', async () => {
    database = await postgres.migratedDatabase();
    store = await openPostgresStore(database.url);
    const job = await createJob(store, 'nightly');
    await finishedRuns(job.id, 6, (index) => (index < 4 ? T0 : T0 + 10 * MINUTE));
    const waiting = await store.insertRun(newRun(job.id, { scheduledFor: T0 + 99 }));

    expect(await store.pruneRunsFinishedBefore(['succeeded'], T0 + MINUTE, 3)).toBe(3);
    expect(await store.pruneRunsFinishedBefore(['succeeded'], T0 + MINUTE, 3)).toBe(1);
    expect(await store.pruneRunsFinishedBefore(['failed'], T0 + 60 * MINUTE, 3)).toBe(0);
    expect(await store.pruneRunsFinishedBefore([], T0 + 60 * MINUTE, 3)).toBe(0);

    const left = await store.listRuns({ limit: 10 });
    expect(left.items).toHaveLength(3);
    expect(left.items[0]?.id).toBe(waiting.id);
  });

  it('Given a job with more finished runs than kept, when pruned beyond the cap, then the newest stay', async () => {
    database = await postgres.migratedDatabase();
    store = await openPostgresStore(database.url);
    const job = await createJob(store, 'nightly');
    await finishedRuns(job.id, 5, () => T0);
    const newest = (await store.listRuns({ limit: 2 })).items.map((run) => run.id);

    expect(await store.pruneRunsBeyond(2, 100)).toBe(3);

    expect((await store.listRuns({ limit: 10 })).items.map((run) => run.id)).toEqual(newest);
  });

  it('Given old audit entries and a cancelled job without runs, when pruned and purged, then they are gone', async () => {
    database = await postgres.migratedDatabase();
    store = await openPostgresStore(database.url);
    const kept = await createJob(store, 'kept');
    const gone = await createJob(store, 'gone');
    await store.cancelJob(gone.id, 1, T0 + 1, stamp('job.cancel', T0 + 1));
    await store.insertRun(newRun(kept.id));
    await store.appendAudit({
      ...stamp('auth.fail', T0 + 10 * MINUTE),
      jobId: null,
      before: null,
      after: null,
    });

    expect(await store.pruneAudit(T0 + MINUTE, 100)).toBe(3);
    expect(await store.purgeCancelledJobs(T0 + MINUTE, 100)).toBe(1);

    expect(await store.findJob(gone.id)).toBeNull();
    expect(await store.findJob(kept.id)).not.toBeNull();
    expect((await store.listAudit({ limit: 10 })).items.map((entry) => entry.action)).toEqual(['auth.fail']);
  });
});

/** How many migrations drizzle/postgres holds: every one of them is applied. */
function postgresMigrationCount(): number {
  const journal = JSON.parse(
    readFileSync(new URL('../../drizzle/postgres/meta/_journal.json', import.meta.url), 'utf8'),
  );
  return (journal.entries as unknown[]).length;
}

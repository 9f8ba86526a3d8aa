import { afterEach, describe, expect, it } from 'vitest';
import type { Job } from '../../src/core/job.js';
import { assignShards } from '../../src/core/cluster/rendezvous.js';
import { PostgresClusterStore } from '../../src/store/postgres/cluster-store.js';
import { openPostgresPool } from '../../src/store/postgres/connection.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Fire, FiredInstant } from '../../src/store/store.js';
import { usePostgres, type TestDatabase } from '../support/postgres.js';
import { createJob, newRun, T0 } from './conformance/fixtures.js';

const MINUTE = 60_000;
const postgres = usePostgres();

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

describe('PostgreSQL fires recorded together', () => {
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

  /** As the scheduler does: a batch refused as a whole is recorded one fire at a time. */
  async function fireTogether(store: PostgresStore, fires: Fire[]): Promise<(FiredInstant | null)[]> {
    try {
      return await store.recordFires(fires);
    } catch {
      return Promise.all(fires.map((fire) => store.recordFire(fire)));
    }
  }

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
});

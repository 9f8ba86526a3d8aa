import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type net from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/core/cluster/shard.js';
import { sched, sleep, useDaemons, waitFor } from '../support/sched-harness.js';
import { usePostgres } from '../support/postgres.js';
import { clusterStatus, startNodes as startFederation } from './support/federation-nodes.js';

const postgres = usePostgres();

/** A loopback HTTP endpoint the jobs call: counts calls, answers 204. */
function startTarget(): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const server = http.createServer((request, response) => {
    calls += 1;
    request.resume();
    response.statusCode = 204;
    response.end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/tick`,
        calls: () => calls,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}

/** A one-second HTTP job as `sched export` writes it (fields left out get their defaults on import). */
function tickJob(name: string, url: string) {
  return {
    name,
    description: null,
    schedule: { kind: 'every', intervalMs: 1_000, anchorMs: 0 },
    timezone: 'UTC',
    target: {
      kind: 'http',
      method: 'GET',
      url,
      headers: {},
      expect: { kind: 'class', hundreds: 2 },
      breaker: { failureThreshold: 5, cooldownMs: 30_000 },
    },
    payload: null,
    timeoutMs: null,
    labels: {},
    retry: { maxRetries: 0, initialBackoffMs: 10_000, factor: 2, maxBackoffMs: 3_600_000, jitter: true },
  };
}

describe('federation through a shared PostgreSQL', () => {
  const { home, start } = useDaemons(afterEach);
  let target: Awaited<ReturnType<typeof startTarget>>;
  let db: pg.Client | null = null;

  beforeAll(async () => {
    target = await startTarget();
  });
  afterAll(async () => {
    await target.close();
  });
  afterEach(async () => {
    await db?.end();
    db = null;
  });

  const startNodes = (url: string, count: number, extra?: (index: number) => string[]) =>
    startFederation({ home, start }, url, count, extra);

  it('three daemons fire 300 one-second jobs exactly once, spread the shards evenly, and survive kill -9 of the coordinator', async () => {
    const database = await postgres.freshDatabase();
    const { homes, daemons } = await startNodes(database.url, 3);
    // Read once the map covers all three (a node briefly out of it while the machine is loaded is not the
    // point here). Each count is Binomial(256, 1/3) for random node ids (sd 7.5): 50-120 is 4.5 sd either side.
    let shards: number[] = [];
    const before = await waitFor(
      async () => {
        const status = await clusterStatus(homes[0]!);
        shards = status.nodes.map((node) => node.shards).sort((a, b) => a - b);
        return shards.length === 3 && shards.every((count) => count > 0) ? status : null;
      },
      30_000,
      250,
    );
    expect(
      shards.every((count) => count >= 50 && count <= 120),
      `shards per node: ${shards.join(', ')}`,
    ).toBe(true);
    expect(shards.reduce((sum, count) => sum + count, 0)).toBe(256);

    // Jobs are added through different daemons, a third each; every daemon sees every job.
    for (const [index, dir] of homes.entries()) {
      const file = path.join(dir, 'jobs.json');
      fs.writeFileSync(
        file,
        JSON.stringify(Array.from({ length: 100 }, (_, i) => tickJob(`tick-${index}-${i}`, target.url))),
      );
      // A hundred adds while the jobs imported before fire: on a loaded machine this takes a while.
      const result = await sched(dir, ['import', 'json', file, '--yes'], { timeoutMs: 150_000 });
      expect(result.code, result.stderr).toBe(0);
    }
    const listed = await sched(homes[2]!, ['ls', '--limit', '1000', '--json']);
    expect(listed.json.items).toHaveLength(300);

    db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const firstRunAt = Date.now();
    // Steady state before the kill: every job has fired a few times on its owner.
    await waitFor(
      async () => {
        const { rows } = await db!.query<{ jobs: number; fewest: number }>(
          `SELECT count(*)::int AS jobs, coalesce(min(n), 0)::int AS fewest FROM (
           SELECT job_id, count(*) AS n FROM runs WHERE created_at > $1 GROUP BY job_id) AS fired`,
          [firstRunAt],
        );
        return rows[0]!.jobs === 300 && rows[0]!.fewest >= 3;
      },
      30_000,
      250,
    );

    const coordinator = before.nodes.find((node) => node.coordinator)!;
    const victimIndex = (await Promise.all(homes.map((dir) => clusterStatus(dir)))).findIndex(
      (status) => status.node === coordinator.id,
    );
    const killedAt = Date.now();
    daemons[victimIndex]!.process.kill('SIGKILL');
    const survivor = homes[(victimIndex + 1) % 3]!;
    const after = await waitFor(async () => {
      const status = await clusterStatus(survivor);
      return status.coordinator !== null && status.coordinator !== coordinator.id && status.term > before.term
        ? status
        : null;
    }, 10_000);
    // A new coordinator published its map within the lease TTL (3 s) plus a heartbeat (0.5 s), with slack
    // for a loaded machine (in CI, PostgreSQL also serves the 300 fires a second, and each round of the new
    // coordinator waits in its queue); measured by the map's own publication time, not by how fast the CLI answered.
    expect(after.mapPublishedAt! - killedAt).toBeLessThan(3_500 + 6_000);
    await waitFor(async () => {
      const status = await clusterStatus(survivor);
      return status.nodes.filter((node) => node.shards > 0).length === 2 ? status : null;
    }, 10_000);
    expect(after.term).toBeGreaterThan(before.term);
    // Long enough after the kill for the survivors to fire the moved shards for a while (see byNode below).
    await sleep(Math.max(0, killedAt + 16_000 - Date.now()));
    const lastRunAt = Date.now();

    const doubles = await db.query(
      `SELECT job_id, scheduled_for, count(*)::int AS n FROM runs WHERE attempt = 1 GROUP BY job_id, scheduled_for HAVING count(*) > 1`,
    );
    expect(doubles.rows).toEqual([]);
    // Every instant of every job from 2 s after the start to 3 s before the end either ran or is in the
    // ledger with a reason (the failover gap, handled by the misfire policy): nothing silently lost. On a
    // loaded machine an instant may still be on its way, so it has a while to show before it counts as lost.
    const jobs = await db.query<{ id: string; definition: { schedule: { anchorMs: number } } }>(
      `SELECT id, definition::json AS definition FROM jobs`,
    );
    const uncovered = async () => {
      const covered = await db!.query<{ job_id: string; instants: string[] }>(
        `SELECT job_id, array_agg(DISTINCT scheduled_for::text) AS instants FROM (
           SELECT job_id, scheduled_for FROM runs
           UNION ALL SELECT job_id, scheduled_for FROM occurrences
         ) AS everything GROUP BY job_id`,
      );
      const missing: Array<{ job: string; at: number }> = [];
      let checked = 0;
      for (const job of jobs.rows) {
        const row = covered.rows.find((candidate) => candidate.job_id === job.id);
        const instants = new Set(row?.instants.map(Number));
        const anchor = job.definition.schedule.anchorMs;
        const from = anchor + Math.ceil((firstRunAt + 2_000 - anchor) / 1_000) * 1_000;
        for (let at = from; at <= lastRunAt - 3_000; at += 1_000) {
          checked += 1;
          if (!instants.has(at)) missing.push({ job: job.id, at });
        }
      }
      return { checked, missing };
    };
    const coverage = await waitFor(async () => (await uncovered()).missing.length === 0, 30_000, 1_000).then(
      () => uncovered(),
      () => uncovered(),
    );
    expect(jobs.rows).toHaveLength(300);
    // The window reaches well past the failover (shards moved within 6.5 s of the kill).
    expect(coverage.checked).toBeGreaterThan(300 * 10);
    expect(coverage.missing).toEqual([]);
    // The gap while the shards moved went through the default misfire policy: caught up or recorded.
    const gap = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM runs WHERE "trigger" = 'catchup' AND scheduled_for >= $1`,
      [killedAt - 2_000],
    );
    const recorded = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM occurrences WHERE outcome = 'missed-while-down' AND scheduled_for >= $1`,
      [killedAt - 2_000],
    );
    expect(gap.rows[0]!.n + recorded.rows[0]!.n).toBeGreaterThan(0);
    // Each job ran on the node that owned its shard; the shards of the dead node moved to the others.
    const byNode = await db.query<{ node: string; n: number }>(
      `SELECT node, count(*)::int AS n FROM runs WHERE created_at > $1 GROUP BY node`,
      [killedAt + 8_000],
    );
    expect(byNode.rows.map((row) => row.node).sort()).toEqual(
      after.nodes
        .filter((node) => node.alive)
        .map((node) => node.id)
        .sort(),
    );
    expect(new Set(jobs.rows.map((job) => shardOf(job.id))).size).toBeGreaterThan(150);
  }, 300_000);

  it('a node paused past its lease fires nothing it no longer owns, and its runs are reconciled', async () => {
    const database = await postgres.freshDatabase();
    const { homes, daemons } = await startNodes(database.url, 2);
    const file = path.join(homes[0]!, 'jobs.json');
    fs.writeFileSync(
      file,
      JSON.stringify(Array.from({ length: 40 }, (_, i) => tickJob(`beat-${i}`, target.url))),
    );
    expect((await sched(homes[0]!, ['import', 'json', file, '--yes'])).code).toBe(0);
    // Runs started by hand execute on the owner of their job's shard: of these jobs, one whose shard the
    // node about to be paused owns is the one to trigger.
    for (let i = 0; i < 16; i++)
      await sched(homes[0]!, [
        'add',
        `long-${i}`,
        '--every',
        '24h',
        '--retries',
        '1',
        '--backoff',
        '0s',
        '--shell',
        'sleep 6',
      ]);
    // The coordinator is paused, so the map that drops it comes with a new term.
    const statuses = await Promise.all(homes.map((dir) => clusterStatus(dir)));
    const pausedIndex = statuses.findIndex((status) => status.node === status.coordinator);
    expect(pausedIndex).toBeGreaterThanOrEqual(0);
    const status = statuses[pausedIndex]!;
    const paused = daemons[pausedIndex]!;
    const other = homes[1 - pausedIndex]!;
    const pausedId = status.node;
    // The long run is started by hand on the node about to be paused.
    let long = '';
    for (let i = 0; i < 16 && long === ''; i++) {
      const trigger = await sched(other, ['trigger', `long-${i}`, '--json']);
      expect(trigger.code, trigger.stderr).toBe(0);
      if (trigger.json.node === pausedId) long = `long-${i}`;
    }
    expect(long).not.toBe('');
    await sleep(1_500);

    db = new pg.Client({ connectionString: database.url });
    await db.connect();
    paused.process.kill('SIGSTOP');
    const pausedAt = Date.now();
    // Its lease runs out after 3 s; the other node then takes every shard (later on a loaded machine).
    await waitFor(async () => {
      const during = await clusterStatus(other);
      return (during.nodes.find((node) => node.id === pausedId)?.shards ?? 0) === 0 ? during : null;
    }, 40_000);
    paused.process.kill('SIGCONT');
    const resumedAt = Date.now();
    await sleep(6_000);

    // Nothing the paused node fired after it woke belongs to a job its old map gave it but the new one did
    // not: its stale fires were refused (fenced) at the store.
    const stale = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM runs WHERE node = $1 AND created_at BETWEEN $2 AND $3 AND fence <= $4`,
      [pausedId, pausedAt, resumedAt + 6_000, status.term],
    );
    expect(stale.rows[0]!.n).toBe(0);
    const doubles = await db.query(
      `SELECT job_id, scheduled_for FROM runs WHERE attempt = 1 GROUP BY job_id, scheduled_for HAVING count(*) > 1`,
    );
    expect(doubles.rows).toEqual([]);
    expect(paused.output()).toMatch(/cluster:fenced|run:reconciled/);

    // The long run was recorded lost by the coordinator and retried by another node with a newer fence.
    const attempts = (await sched(other, ['history', long, '--json'])).json.items.slice().reverse();
    expect(attempts[0].state).toBe('lost');
    expect(attempts[0].node).toBe(pausedId);
    expect(attempts[1]?.attempt).toBe(2);
    expect(attempts[1].node).not.toBe(pausedId);
    expect(attempts[1].fence).toBeGreaterThan(attempts[0].fence);
    await waitFor(async () => (paused.output().includes('run:reconciled') ? true : null), 10_000);
  }, 150_000);

  it('a job pinned to a node fires there again after that node was paused and its run recorded lost', async () => {
    const database = await postgres.freshDatabase();
    const { homes, daemons } = await startNodes(database.url, 2, (index) => [
      '--label',
      `role=${index === 0 ? 'a' : 'b'}`,
    ]);
    const pinned = await sched(homes[1]!, [
      'add',
      'pinned',
      '--every',
      '4s',
      '--on',
      'role=a',
      '--',
      'sleep',
      '2',
    ]);
    expect(pinned.code, pinned.stderr).toBe(0);
    const nodeA = (await clusterStatus(homes[0]!)).node;
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const runsOfPinned = async () =>
      (
        await db!.query<{ id: string; state: string; node: string; created_at: string }>(
          `SELECT r.id, r.state, r.node, r.created_at FROM runs r JOIN jobs j ON j.id = r.job_id
             WHERE j.name = 'pinned' ORDER BY r.created_at`,
        )
      ).rows;

    // Paused while a run of it is under way, for longer than it takes the other node to declare it dead.
    const caught = await waitFor(
      async () => (await runsOfPinned()).find((run) => run.state === 'running' && run.node === nodeA),
      30_000,
      50,
    );
    daemons[0]!.process.kill('SIGSTOP');
    await waitFor(
      async () => (await runsOfPinned()).find((run) => run.id === caught.id && run.state === 'lost'),
      20_000,
    );
    daemons[0]!.process.kill('SIGCONT');
    const resumedAt = Date.now();

    // Its run ended on its own while the node was paused; the node takes note and fires the job again.
    const fresh = await waitFor(async () => {
      const later = (await runsOfPinned()).filter(
        (run) => run.node === nodeA && Number(run.created_at) > resumedAt && run.state === 'succeeded',
      );
      return later.length >= 2 ? later : null;
    }, 40_000);
    await waitFor(async () => (daemons[0]!.output().includes('run:reconciled') ? true : null), 10_000);
    // No instant after it fired again was skipped for the run that was no longer running.
    const skips = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM occurrences WHERE outcome = 'skipped-overlap' AND reason LIKE $1
         AND decided_at >= $2`,
      [`%${caught.id}%`, Number(fresh[0]!.created_at)],
    );
    expect(skips.rows[0]!.n).toBe(0);
  }, 120_000);

  it('runs an every-host job on each live node and keeps an --on job to the nodes with that label', async () => {
    const database = await postgres.freshDatabase();
    const { homes, daemons } = await startNodes(database.url, 2, (index) => [
      '--label',
      `role=${index === 0 ? 'db' : 'web'}`,
      ...(index === 0 ? ['--metrics', '127.0.0.1:0'] : []),
    ]);
    const add = async (args: string[]) => {
      const result = await sched(homes[1]!, ['add', ...args]);
      expect(result.code, result.stderr).toBe(0);
    };
    await add(['everywhere', '--every', '1s', '--placement', 'every-host', '--http', target.url]);
    await add(['db-only', '--every', '1s', '--on', 'role=db', '--http', target.url]);
    await add([
      'db-hosts',
      '--every',
      '1s',
      '--placement',
      'every-host',
      '--on',
      'role=db',
      '--http',
      target.url,
    ]);
    const shown = await sched(homes[0]!, ['show', 'db-hosts']);
    expect(shown.stdout).toMatch(/every host runs each instant/);
    expect(shown.stdout).toMatch(/nodes labelled role=db/);

    const nodes = await Promise.all(homes.map(async (dir) => (await clusterStatus(dir)).node));
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const byJob = async (name: string) =>
      (
        await db!.query<{ node: string; host: string; instants: number; runs: number }>(
          `SELECT r.node, r.host, count(DISTINCT r.scheduled_for)::int AS instants, count(*)::int AS runs
             FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.name = $1 GROUP BY r.node, r.host ORDER BY r.node`,
          [name],
        )
      ).rows;
    const everywhere = await waitFor(async () => {
      const rows = await byJob('everywhere');
      return rows.length === nodes.length && rows.every((row) => row.instants >= 3) ? rows : null;
    }, 30_000);
    expect(everywhere.map((row) => row.node).sort()).toEqual([...nodes].sort());
    for (const row of everywhere) {
      expect(row.host).toBe(row.node);
      expect(row.instants).toBeGreaterThanOrEqual(3);
      expect(row.runs).toBe(row.instants);
    }
    expect((await byJob('db-only')).map((row) => [row.node, row.host])).toEqual([[nodes[0], '']]);
    expect((await byJob('db-hosts')).map((row) => row.node)).toEqual([nodes[0]]);

    // The cluster as the first node's metrics show it.
    const address = /"metricsAddress":"([^"]+)"/.exec(daemons[0]!.output())?.[1];
    expect(address).toBeDefined();
    const metrics = await (await fetch(`http://${address}/metrics`)).text();
    const gauge = (pattern: RegExp) => Number(pattern.exec(metrics)?.[1]);
    expect(gauge(/^sched_cluster_nodes\{state="alive"\} (\d+)$/m)).toBe(2);
    expect(gauge(/^sched_cluster_term (\d+)$/m)).toBeGreaterThan(0);
    expect(gauge(/^sched_cluster_shards_owned (\d+)$/m)).toBeGreaterThan(0);
    expect([0, 1]).toContain(gauge(/^sched_cluster_is_coordinator (\d+)$/m));
  }, 90_000);
});

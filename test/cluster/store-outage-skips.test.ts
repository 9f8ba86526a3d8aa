import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, sched, useDaemons, waitFor } from '../support/sched-harness.js';
import { startEmbeddedPostgres, type RunningServer } from '../support/postgres-server.js';

const OUTAGE_MS = 12_000;

async function rows<T extends pg.QueryResultRow>(
  url: string,
  query: string,
  params: unknown[],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(query, params)).rows;
  } finally {
    await client.end();
  }
}

/** How many runs and ledger entries a node's journal holds, read beside the daemon. */
function journaled(home: string): { runs: number; entries: number } {
  const db = new Database(path.join(home, 'local-copy.db'), { readonly: true, fileMustExist: true });
  try {
    const count = (table: string) =>
      (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { runs: count('journaled_runs'), entries: count('journaled_occurrences') };
  } finally {
    db.close();
  }
}

describe('PostgreSQL unreachable under an every-host job whose runs overlap its instants', () => {
  const { home, start } = useDaemons(afterEach);
  // A server of this file's own: stopping the run's shared one would disturb every other file.
  let server: RunningServer;
  beforeAll(async () => {
    server = await startEmbeddedPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('the instants it skips for --concurrency forbid while offline are in the ledger once the store is back, with their reason and node', async () => {
    const dir = home();
    const daemon = await start(dir, ['--store', server.url, '--heartbeat-interval', '500ms']);
    const added = await sched(dir, [
      ...['add', 'slow-everywhere', '--every', '1s', '--placement', 'every-host'],
      ...['--shell', 'sleep 3'],
    ]);
    expect(added.code, added.stderr).toBe(0);
    const node = (await sched(dir, ['cluster', 'status', '--json'])).json.node as string;
    const ranAt = async (from: number, to: number) =>
      (
        await rows<{ at: string }>(
          server.url,
          `SELECT r.scheduled_for AS at FROM runs r JOIN jobs j ON j.id = r.job_id
            WHERE j.name = 'slow-everywhere' AND r.scheduled_for BETWEEN $1 AND $2`,
          [from, to],
        )
      ).map((row) => Number(row.at));
    await waitFor(async () => (await ranAt(0, Date.now())).length >= 2, 30_000);

    // Given the job runs; when the server is stopped for 12 s, and the node has run and skipped meanwhile.
    const stoppedAt = Date.now();
    const restarting = server.restart(OUTAGE_MS);
    await waitFor(async () => {
      const answer = await sched(dir, ['cluster', 'status', '--json']);
      return answer.json?.degraded !== undefined;
    }, 15_000);
    await waitFor(async () => journaled(dir).runs >= 2, OUTAGE_MS);
    await restarting;
    const restartedAt = Date.now();
    expect(isAlive(daemon.pid), daemon.output().slice(-8_000)).toBe(true);

    // Then the journal is replayed and empty,
    await waitFor(async () => {
      const held = journaled(dir);
      return held.runs === 0 && held.entries === 0;
    }, 30_000);

    // and each instant of the outage either ran or is in the ledger, skipped for the overlap, by this node.
    const from = stoppedAt + 1_000;
    const to = restartedAt - 1_000;
    const skips = await rows<{ at: string; outcome: string; reason: string; node: string }>(
      server.url,
      `SELECT o.scheduled_for AS at, o.outcome, o.reason, o.node FROM occurrences o JOIN jobs j ON j.id = o.job_id
        WHERE j.name = 'slow-everywhere' AND o.scheduled_for BETWEEN $1 AND $2 ORDER BY o.scheduled_for`,
      [from, to],
    );
    expect(skips.length).toBeGreaterThanOrEqual(3);
    for (const skip of skips) {
      expect([skip.outcome, skip.node]).toEqual(['skipped-overlap', node]);
      expect(skip.reason).toMatch(new RegExp(`^on node ${node}: .*still running`));
    }
    const ran = await ranAt(from, to);
    const skipped = skips.map((skip) => Number(skip.at));
    expect(ran.filter((at) => skipped.includes(at))).toEqual([]);
    // The instants of `--every 1s` follow the job's creation by whole seconds: none missing between from and to.
    const covered = [...ran, ...skipped].sort((a, b) => a - b);
    expect(covered[0]! - from).toBeLessThan(1_000);
    expect(to - covered.at(-1)!).toBeLessThan(1_000);
    expect(covered.slice(1).filter((at, index) => at - covered[index]! !== 1_000)).toEqual([]);

    // `sched why` and `history --all-occurrences` tell of them.
    const why = await sched(dir, [
      'why',
      'slow-everywhere',
      '--at',
      new Date(skipped[0]!).toISOString(),
      '--json',
    ]);
    expect(why.code, why.stderr).toBe(0);
    expect(why.json.sentence).toMatch(
      new RegExp(`was skipped because on node ${node}: run \\S+ was still running.*decided by node ${node}`),
    );
    expect(why.json.entry).toMatchObject({ outcome: 'skipped-overlap', node, scheduledFor: skipped[0] });
    const history = await sched(dir, [
      'history',
      'slow-everywhere',
      '--all-occurrences',
      '--limit',
      '100',
      '--json',
    ]);
    expect(history.code, history.stderr).toBe(0);
    const listed = (history.json.items as { scheduledFor: number; outcome: string }[])
      .filter((entry) => entry.outcome === 'skipped-overlap')
      .map((entry) => entry.scheduledFor);
    expect(listed).toEqual(expect.arrayContaining(skipped));
  }, 180_000);
});

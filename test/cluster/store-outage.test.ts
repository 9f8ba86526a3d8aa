import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, sched, useDaemons, waitFor, type RunningDaemon } from '../support/sched-harness.js';
import { startEmbeddedPostgres, type RunningServer } from '../support/postgres-server.js';
import { databaseUrl } from '../support/postgres.js';
import { shareKeyFile } from './support/federation-nodes.js';

const OUTAGE_MS = 20_000;
const SHORT_OUTAGE_MS = 12_000;

async function rows<T extends pg.QueryResultRow>(
  url: string,
  query: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(query, params)).rows;
  } finally {
    await client.end();
  }
}

/** Reads a node's journal beside the daemon (SQLite in WAL mode lets a reader in). */
function readJournal<T>(home: string, read: (db: Database.Database) => T): T {
  const db = new Database(path.join(home, 'local-copy.db'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The run ids a node's journal holds. */
function journaledRunIds(home: string): string[] {
  return readJournal(home, (db) =>
    (db.prepare('SELECT id FROM journaled_runs').all() as { id: string }[]).map((row) => row.id),
  );
}

/** How many runs and ledger entries a node's journal holds. */
function journaled(home: string): { runs: number; entries: number } {
  return readJournal(home, (db) => {
    const count = (table: string) =>
      (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { runs: count('journaled_runs'), entries: count('journaled_occurrences') };
  });
}

/** The instants at which `host` ran the job from `from` to `to`, ascending. */
async function instantsOn(
  url: string,
  job: string,
  host: string,
  from: number,
  to: number,
): Promise<number[]> {
  const found = await rows<{ at: string }>(
    url,
    `SELECT r.scheduled_for AS at FROM runs r JOIN jobs j ON j.id = r.job_id
      WHERE j.name = $1 AND r.host = $2 AND r.scheduled_for BETWEEN $3 AND $4 ORDER BY r.scheduled_for`,
    [job, host, from, to],
  );
  return found.map((row) => Number(row.at));
}

/** What a daemon logged, other than its runs, in the 3 s before `at`. */
function logAround(daemon: RunningDaemon, at: number): string {
  return daemon
    .output()
    .split('\n')
    .filter((line) => {
      const time = Date.parse(/"time":"([^"]+)"/.exec(line)?.[1] ?? '');
      return time >= at - 3_000 && time <= at && !/"event":"run:(fired|finished)"/.test(line);
    })
    .map((line) => line.slice(0, 600))
    .join('\n');
}

/** Instants missing from an every-second series (none when each follows the one before by a second). */
function gapsIn(instants: number[]): number[] {
  return instants.slice(1).filter((at, index) => at - instants[index]! !== 1_000);
}

describe('PostgreSQL unreachable under daemons firing every-host jobs', () => {
  const { home, start } = useDaemons(afterEach);
  // A server of this file's own: stopping the run's shared one would disturb every other file.
  let server: RunningServer;
  beforeAll(async () => {
    server = await startEmbeddedPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('every-host jobs fire on every node throughout, once jobs wait, and every journaled run is stored once', async () => {
    const args = ['--store', server.url, '--heartbeat-interval', '500ms', '--lease-ttl', '3s'];
    const homes = [home(), home(), home()];
    const daemons: RunningDaemon[] = [];
    for (const [index, dir] of homes.entries()) {
      // Daemons on one store share its secret key file, as an operator copies it.
      if (index > 0) shareKeyFile(homes[0]!, dir);
      daemons.push(await start(dir, [...args, '--metrics', '127.0.0.1:0']));
    }
    const healthOf = async (daemon: RunningDaemon) => {
      const started = daemon
        .output()
        .split('\n')
        .find((line) => line.includes('"daemon:started"'))!;
      const address = JSON.parse(started).metricsAddress as string;
      return (await fetch(`http://${address}/health`)).json() as Promise<{ degraded?: string }>;
    };
    // Overlap allowed: a run whose end takes over a second to store (a loaded host, the database just back)
    // would otherwise skip the next instant by --concurrency forbid, a policy decision and not a lost fire.
    const everywhere = await sched(homes[0]!, [
      ...['add', 'everywhere', '--every', '1s', '--placement', 'every-host', '--concurrency', 'allow'],
      ...['--shell', 'true'],
    ]);
    expect(everywhere.code, everywhere.stderr).toBe(0);
    const single = await sched(homes[1]!, ['add', 'single', '--every', '1s', '--shell', 'true']);
    expect(single.code, single.stderr).toBe(0);
    // The node ids, in the order of the homes.
    const nodes: string[] = [];
    for (const dir of homes) nodes.push((await sched(dir, ['cluster', 'status', '--json'])).json.node);
    await waitFor(async () => {
      const hosts = await rows<{ host: string }>(
        server.url,
        `SELECT r.host FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.name = 'everywhere'
          GROUP BY r.host HAVING count(*) >= 3`,
      );
      return hosts.length === 3;
    }, 30_000);

    // Given every node fires; when the server is stopped for 20 s.
    const stoppedAt = Date.now();
    const restarting = server.restart(OUTAGE_MS);

    // Then each node says it is degraded, refuses writes, and lists its local copy as possibly stale.
    const status = await waitFor(async () => {
      const answer = await sched(homes[2]!, ['cluster', 'status', '--json']);
      return answer.json?.degraded ? answer.json : null;
    }, 15_000);
    expect(status.degraded).toMatch(
      /^degraded: store unreachable for \d+s, firing every-host jobs from the local copy$/,
    );
    const health = await waitFor(async () => {
      const body = await healthOf(daemons[1]!);
      return body.degraded === undefined ? null : body;
    }, 15_000);
    expect(health.degraded).toMatch(/^degraded: store unreachable for \d+s/);
    const refused = await sched(homes[0]!, [
      'add',
      'during-outage',
      '--every',
      '1h',
      '--shell',
      'true',
      '--json',
    ]);
    expect(refused.code).toBe(7);
    expect(refused.json.error).toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringMatching(
        /^The store cannot be reached \(.*ECONNREFUSED.*\); nothing was read or changed\.$/,
      ),
    });
    const listed = await sched(homes[1]!, ['ls', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json.stale).toMatch(/may be stale/);
    expect(listed.json.items.map((job: { name: string }) => job.name).sort()).toEqual([
      'everywhere',
      'single',
    ]);
    const shown = await sched(homes[2]!, ['show', 'everywhere', '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect([shown.json.job.name, shown.json.stale]).toEqual([
      'everywhere',
      expect.stringMatching(/may be stale/),
    ]);
    let journals: string[][] = [];
    const journaled = await waitFor(async () => {
      journals = homes.map(journaledRunIds);
      const late = Date.now() - stoppedAt > OUTAGE_MS - 4_000;
      return late && journals.every((ids) => ids.length >= 5) ? journals.flat() : null;
    }, OUTAGE_MS).catch(() => {
      const logs = daemons.map((daemon) => daemon.output().slice(-4_000)).join('\n----\n');
      return expect.fail(`runs journaled by node: ${journals.map((ids) => ids.length).join(', ')}\n${logs}`);
    });
    await restarting;
    const restartedAt = Date.now();

    // Every daemon lived through it; a dead one's log says why.
    const dead = daemons.filter((daemon) => !isAlive(daemon.pid));
    expect(dead.map((daemon) => daemon.output().slice(-8_000)).join('\n----\n')).toBe('');

    // The journals are replayed and empty: until then the runs fired in the outage are not all stored yet.
    await waitFor(async () => homes.every((dir) => journaledRunIds(dir).length === 0), 30_000);

    // Each node's every-second runs, once replayed, have no gap from before the outage to after it.
    const from = stoppedAt - 2_000;
    const to = restartedAt + 3_000;
    let lastSeen: number[][] = [];
    const series = await waitFor(async () => {
      lastSeen = await Promise.all(nodes.map((host) => instantsOn(server.url, 'everywhere', host, from, to)));
      const covered = lastSeen.every(
        (list) => list.length > 0 && list[0]! <= stoppedAt && list.at(-1)! >= to - 1_000,
      );
      return covered ? lastSeen : null;
    }, 30_000).catch(() => {
      const seen = lastSeen.map((list) => list.map((at) => at - stoppedAt).join(' ')).join('\n');
      const logs = daemons.map((daemon) => daemon.output().slice(-4_000)).join('\n----\n');
      return expect.fail(`instants since the stop, by node:\n${seen}\n${logs}`);
    });
    series.forEach((instants, index) => {
      // A gap names the instant after it, in ms since the stop, with what the node logged then.
      const gaps = gapsIn(instants).map((at) => at - stoppedAt);
      const log = gaps.length === 0 ? '' : logAround(daemons[index]!, stoppedAt + gaps[0]!);
      expect(gaps, log).toEqual([]);
      expect(new Set(instants).size).toBe(instants.length);
    });

    // Every journaled run is in PostgreSQL exactly once, ended.
    const stored = await rows<{ id: string; state: string }>(
      server.url,
      'SELECT id, state FROM runs WHERE id = ANY($1)',
      [journaled],
    );
    expect(stored.map((run) => run.id).sort()).toEqual([...new Set(journaled)].sort());
    expect(stored.filter((run) => run.state === 'running' || run.state === 'scheduled')).toEqual([]);
    const twice = await rows(
      server.url,
      `SELECT r.host, r.scheduled_for FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.name = 'everywhere'
        GROUP BY r.host, r.scheduled_for, r.attempt HAVING count(*) > 1`,
    );
    expect(twice).toEqual([]);

    // The once job fired nowhere during the outage, no instant of it ran twice, and its missed instants say why.
    const duringOutage = await rows(
      server.url,
      `SELECT r.id FROM runs r JOIN jobs j ON j.id = r.job_id
        WHERE j.name = 'single' AND r.started_at BETWEEN $1 AND $2`,
      [stoppedAt + 2_000, restartedAt - 1_000],
    );
    expect(duringOutage).toEqual([]);
    const repeated = await rows(
      server.url,
      `SELECT r.scheduled_for FROM runs r JOIN jobs j ON j.id = r.job_id
        WHERE j.name = 'single' GROUP BY r.scheduled_for, r.attempt HAVING count(*) > 1`,
    );
    expect(repeated).toEqual([]);
    const missed = await waitFor(async () => {
      const found = await rows<{ at: string }>(
        server.url,
        `SELECT o.scheduled_for AS at FROM occurrences o JOIN jobs j ON j.id = o.job_id
          WHERE j.name = 'single' AND o.outcome = 'store-unreachable' ORDER BY o.scheduled_for`,
      );
      return found.length > 0 ? found.map((row) => Number(row.at)) : null;
    }, 30_000).catch(async () => {
      const ledger = await rows(
        server.url,
        `SELECT o.scheduled_for, o.outcome, o.reason FROM occurrences o JOIN jobs j ON j.id = o.job_id
          WHERE j.name = 'single'`,
      );
      return expect.fail(`the once job's ledger has no store-unreachable instant: ${JSON.stringify(ledger)}`);
    });
    const why = await sched(homes[0]!, [
      'why',
      'single',
      '--at',
      new Date(missed[0]!).toISOString(),
      '--json',
    ]);
    expect(why.code, why.stderr).toBe(0);
    expect(why.json.sentence).toMatch(/while the store could not be reached/);

    // And the nodes leave degraded mode by themselves.
    await waitFor(async () => {
      const answer = await sched(homes[2]!, ['cluster', 'status', '--json']);
      return answer.code === 0 && answer.json.degraded === undefined && answer.json.nodes.length === 3;
    }, 30_000);
  }, 240_000);

  it('one daemon: the instants an every-host job skips for --concurrency forbid while offline are in the ledger once the store is back, with their reason and node', async () => {
    // A database of its own: the store of the test before holds secrets sealed under that test's key.
    await rows(server.url, 'CREATE DATABASE outage_skips');
    const url = databaseUrl(server.url, 'outage_skips');
    const dir = home();
    const daemon = await start(dir, ['--store', url, '--heartbeat-interval', '500ms']);
    const added = await sched(dir, [
      ...['add', 'slow-everywhere', '--every', '1s', '--placement', 'every-host'],
      ...['--shell', 'sleep 3'],
    ]);
    expect(added.code, added.stderr).toBe(0);
    const node = (await sched(dir, ['cluster', 'status', '--json'])).json.node as string;
    const ranAt = (from: number, to: number) => instantsOn(url, 'slow-everywhere', node, from, to);
    await waitFor(async () => (await ranAt(0, Date.now())).length >= 2, 30_000);

    // Given the job runs; when the server is stopped for 12 s, and the node has run and skipped meanwhile.
    const stoppedAt = Date.now();
    const restarting = server.restart(SHORT_OUTAGE_MS);
    await waitFor(async () => {
      const answer = await sched(dir, ['cluster', 'status', '--json']);
      return answer.json?.degraded !== undefined;
    }, 15_000);
    await waitFor(async () => journaled(dir).runs >= 2, SHORT_OUTAGE_MS);
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
      url,
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

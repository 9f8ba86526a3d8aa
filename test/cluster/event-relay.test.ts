import path from 'node:path';
import pg from 'pg';
import { DaemonBackend } from '../../src/tui/backend/daemon-backend.js';
import type { Action } from '../../src/tui/state/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, sched, useDaemons, waitFor, type RunningDaemon } from '../support/sched-harness.js';
import { shareKeyFile } from './support/federation-nodes.js';
import { streamSched, type SchedStream } from '../support/sched-stream.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
const CLUSTER_ARGS = ['--heartbeat-interval', '500ms', '--lease-ttl', '3s'];

interface WatchedEvent {
  type: string;
  id?: number;
  node?: string;
  data: { id?: string; runId?: string; jobId?: string; name?: string; state?: string };
}

/**
 * Two daemons on one PostgreSQL, a labelled role=web (A) and one role=db (B). Jobs pinned `--on role=db`
 * run on B; what A's `sched watch` and `sched logs --follow` show of them crossed the store's outbox.
 */
describe('events cross nodes through the outbox', () => {
  const { home, start } = useDaemons(afterAll);
  const streams: SchedStream[] = [];
  let db: pg.Client;
  let a: string;
  let b: string;
  let nodeB: string;
  let daemons: RunningDaemon[];
  let jobs = 0;

  beforeAll(async () => {
    const database = await postgres.freshDatabase();
    a = home();
    b = home();
    const first = await start(a, ['--store', database.url, ...CLUSTER_ARGS, '--label', 'role=web']);
    shareKeyFile(a, b);
    daemons = [first, await start(b, ['--store', database.url, ...CLUSTER_ARGS, '--label', 'role=db'])];
    nodeB = (await sched(b, ['cluster', 'status', '--json'])).json.node as string;
    await waitFor(async () => {
      const nodes: { alive: boolean }[] = (await sched(a, ['cluster', 'status', '--json'])).json?.nodes ?? [];
      return nodes.filter((node) => node.alive).length === 2;
    }, 30_000);
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
  }, 120_000);

  afterEach(() => {
    for (const stream of streams.splice(0)) stream.process.kill('SIGKILL');
  });

  afterAll(async () => {
    await db?.end();
  });

  const follow = (dir: string, args: string[]): SchedStream => {
    const stream = streamSched(dir, args);
    streams.push(stream);
    return stream;
  };
  const eventsOf = (stream: SchedStream): WatchedEvent[] =>
    stream.lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as WatchedEvent);
  const ok = (result: { code: number; stderr: string }) => expect(result.code, result.stderr).toBe(0);

  /** A job that runs on B only, printing `script`'s output. */
  async function jobOnB(script: string): Promise<string> {
    const name = `on-b-${(jobs += 1)}`;
    ok(await sched(a, ['add', name, '--cron', '0 0 1 1 *', '--on', 'role=db', '--shell', script]));
    return name;
  }

  /** A's watcher is subscribed once it shows a job created on B (a B event, so the relay works too). */
  async function subscribed(watcher: SchedStream): Promise<void> {
    let probe = 0;
    await waitFor(
      async () => {
        const name = `probe-${(probe += 1)}-${Date.now()}`;
        await sched(b, ['add', name, '--every', '1h', '--', 'true']);
        return eventsOf(watcher).some((event) => event.type === 'job:created' && event.data.name === name);
      },
      30_000,
      300,
    );
  }

  it("sched watch --json on A shows run:started and run:finished of a run on B, marked with B's node id and an id", async () => {
    const watcher = follow(a, ['watch', '--json']);
    await subscribed(watcher);
    const job = await jobOnB('echo hello');

    const triggered = await sched(a, ['trigger', job, '--json']);
    ok(triggered);
    expect(triggered.json.node).toBe(nodeB);
    const runId = triggered.json.id as string;

    const seen = await waitFor(async () => {
      const ofRun = eventsOf(watcher).filter((event) => (event.data.runId ?? event.data.id) === runId);
      return ofRun.some((event) => event.type === 'run:finished') ? ofRun : null;
    }, 30_000);
    const started = seen.find((event) => event.type === 'run:started');
    const ended = seen.find((event) => event.type === 'run:finished');
    expect(started).toMatchObject({ node: nodeB, data: { runId } });
    expect(ended).toMatchObject({ node: nodeB, data: { id: runId, state: 'succeeded' } });
    expect(started!.id).toBeLessThan(ended!.id!);
  });

  it("sched watch on A names the node of each event, B's too", async () => {
    const watcher = follow(a, ['watch', '--type', 'job:created']);
    const line = await waitFor(
      async () => {
        await sched(b, ['add', `named-${Date.now()}`, '--every', '1h', '--', 'true']);
        return watcher.lines.find(
          (text) => text.includes('job:created') && text.includes(`on ${nodeB}  named-`),
        );
      },
      30_000,
      300,
    );
    expect(line).toMatch(/job:created {10}on \S+ {2}named-\d+ {2}every 1h/);
  });

  it("sched logs --follow on A prints B's run's output while it runs, then how it ended", async () => {
    const job = await jobOnB('for i in 1 2 3 4 5 6; do echo "line-$i"; sleep 0.5; done');
    const triggered = await sched(a, ['trigger', job, '--json']);
    ok(triggered);
    const runId = triggered.json.id as string;
    await waitFor(async () => (await sched(a, ['logs', runId, '--json'])).json?.state === 'running', 30_000);

    const follower = follow(a, ['logs', '--follow', runId]);

    await waitFor(async () => follower.lines.includes('line-2'), 30_000);
    const state = await db.query<{ state: string }>('SELECT state FROM runs WHERE id = $1', [runId]);
    expect(state.rows[0]?.state).toBe('running');
    expect(await follower.exited, follower.stderr()).toBe(0);
    expect(follower.lines.filter((line) => line.startsWith('line-'))).toEqual([
      'line-1',
      'line-2',
      'line-3',
      'line-4',
      'line-5',
      'line-6',
    ]);
    expect(follower.stderr()).toMatch(/succeeded/);
  });

  it('sched watch --since ID on A replays the events it missed, then goes on live, each once', async () => {
    const first = follow(a, ['watch', '--json']);
    await subscribed(first);
    const lastSeen = Math.max(...eventsOf(first).map((event) => event.id ?? 0));
    first.process.kill('SIGKILL');
    const missed = await jobOnB('echo missed');
    ok(await sched(a, ['trigger', missed]));
    await waitFor(
      async () =>
        (
          await db.query(
            `SELECT 1 FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.name = $1 AND r.state = 'succeeded'`,
            [missed],
          )
        ).rowCount === 1,
      30_000,
    );

    const resumed = follow(a, ['watch', '--json', '--since', String(lastSeen)]);
    const live = await jobOnB('echo live');

    const events = await waitFor(async () => {
      const all = eventsOf(resumed);
      return all.some((event) => event.type === 'job:created' && event.data.name === live) ? all : null;
    }, 30_000);
    const missedJob = events.find((event) => event.type === 'job:created' && event.data.name === missed);
    const replayed = events.filter(
      (event) => event.data.jobId === missedJob?.data.id || event.data.id === missedJob?.data.id,
    );
    expect(replayed.map((event) => event.type)).toEqual(
      expect.arrayContaining(['job:created', 'run:fired', 'run:started', 'run:finished']),
    );
    const ids = events.flatMap((event) => (event.id === undefined ? [] : [event.id]));
    expect(ids.every((id) => id > lastSeen)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a bad --since is refused with exit 2 and a hint, and so is one past the latest event', async () => {
    const word = await sched(a, ['watch', '--since', 'yesterday']);
    expect(word.code).toBe(2);
    expect(word.stderr).toMatch(/--since takes an event id/);
    expect(word.stderr).toMatch(/watch --json/);

    const ahead = await sched(a, ['watch', '--since', '999999999']);
    expect(ahead.code).toBe(2);
    expect(ahead.stderr).toMatch(/past the latest event/);
  });

  it("events stored while A's events connection is down reach A's watcher once it is back", async () => {
    const watcher = follow(a, ['watch', '--json']);
    await subscribed(watcher);
    const cutOff = () =>
      db.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'sched-events' AND datname = current_database()`,
      );
    expect((await cutOff()).rowCount).toBe(2);
    const job = await jobOnB('sleep 2; echo after');

    // The connections are ended again and again (each reconnects a second later) until B's run is over,
    // so its events are announced while no one listens; nothing is stored after it.
    const triggered = await sched(a, ['trigger', job, '--json']);
    ok(triggered);
    await waitFor(
      async () => {
        await cutOff();
        const run = await db.query(`SELECT 1 FROM runs WHERE id = $1 AND state = 'succeeded'`, [
          triggered.json.id,
        ]);
        return run.rowCount === 1;
      },
      30_000,
      100,
    );
    await cutOff();

    await waitFor(
      async () =>
        eventsOf(watcher).some(
          (event) =>
            event.type === 'run:finished' && event.data.id === triggered.json.id && event.node === nodeB,
        ),
      30_000,
    );
    expect(daemons.every((daemon) => isAlive(daemon.pid))).toBe(true);
  });

  it("the dashboard's link to A, once connected, gets the runs fired on B after it connected", async () => {
    const actions: Action[] = [];
    const backend = new DaemonBackend({ target: { socketPath: path.join(a, 'sched.sock') }, coalesceMs: 50 });
    const stop = backend.start((action) => actions.push(action));
    try {
      await waitFor(async () => actions.some((action) => action.type === 'snapshot'), 30_000);
      const job = await jobOnB('echo dash');
      // Asked on B, the run is fired on B: its run:fired is B's event.
      const triggered = await sched(b, ['trigger', job, '--json']);
      ok(triggered);

      const fired = await waitFor(async () =>
        actions
          .flatMap((action) => (action.type === 'events' ? action.events : []))
          .find((event) => event.type === 'run:fired' && event.data.id === triggered.json.id),
      );
      expect(fired).toMatchObject({ node: nodeB, id: expect.any(Number), data: { node: nodeB } });
    } finally {
      stop();
    }
  });

  it('malformed announcements and an unreadable event row are dropped: every daemon stays up and later events still arrive', async () => {
    const watcher = follow(a, ['watch', '--json']);
    await subscribed(watcher);
    await db.query(`NOTIFY sched_events, 'not an id'`);
    await db.query(`SELECT pg_notify('sched_events', '99999999999999999999999')`);
    await db.query(`SELECT pg_notify('sched_events', '')`);
    const bad = await db.query<{ id: string }>(
      `INSERT INTO events (type, node, at, job_id, run_id, data) VALUES ('run:finished', 'elsewhere', 0, 'x', NULL, '{oops') RETURNING id`,
    );
    await db.query(`SELECT pg_notify('sched_events', $1)`, [bad.rows[0]!.id]);
    await db.query(
      `INSERT INTO events (type, node, at, job_id, run_id, data) VALUES ('no:such-type', 'elsewhere', 0, 'x', NULL, '{}')`,
    );

    const job = await jobOnB('echo still');
    const triggered = await sched(a, ['trigger', job, '--json']);
    ok(triggered);
    await waitFor(
      async () =>
        eventsOf(watcher).some(
          (event) => event.type === 'run:finished' && event.data.id === triggered.json.id,
        ),
      30_000,
    );
    expect(daemons.every((daemon) => isAlive(daemon.pid))).toBe(true);
    expect(eventsOf(watcher).some((event) => event.node === 'elsewhere')).toBe(false);
  });
});

import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';
import { usePostgres } from '../support/postgres.js';
import { overlaps } from '../support/run-overlaps.js';
import { clusterStatus, startNodes } from './support/federation-nodes.js';

const postgres = usePostgres();

interface StoredRun {
  id: string;
  state: string;
  node: string;
  trigger: string;
  scheduledFor: number;
  startedAt: number | null;
  finishedAt: number | null;
  pid: number | null;
  error: string | null;
}

const FINAL = ['succeeded', 'failed', 'timed_out', 'cancelled', 'lost'];

/** Whether the process group led by `pid` still has a process in it. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('overlap policies across a PostgreSQL federation', () => {
  const daemons = useDaemons(afterEach);
  let db: pg.Client | null = null;
  afterEach(async () => {
    await db?.end();
    db = null;
  });

  async function connect(url: string): Promise<pg.Client> {
    db = new pg.Client({ connectionString: url });
    await db.connect();
    return db;
  }

  async function runsOf(client: pg.Client, job: string): Promise<StoredRun[]> {
    const { rows } = await client.query(
      `SELECT r.id, r.state, r.node, r.trigger, r.scheduled_for, r.started_at, r.finished_at, r.pid, r.error
         FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.name = $1 ORDER BY r.created_at, r.id`,
      [job],
    );
    const at = (value: string | null) => (value === null ? null : Number(value));
    return rows.map((row) => ({
      id: row.id,
      state: row.state,
      node: row.node,
      trigger: row.trigger,
      scheduledFor: Number(row.scheduled_for),
      startedAt: at(row.started_at),
      finishedAt: at(row.finished_at),
      pid: row.pid === null ? null : Number(row.pid),
      error: row.error,
    }));
  }

  it('a forbid job with 3 s runs every second never has two runs running, through kill -9 of its owner and a run triggered from a third node, and each skipped instant is in the ledger', async () => {
    const database = await postgres.freshDatabase();
    const { homes, daemons: started } = await startNodes(daemons, database.url, 3);
    const client = await connect(database.url);
    const added = await sched(homes[0]!, [
      'add',
      'slow',
      '--every',
      '1s',
      '--concurrency',
      'forbid',
      // The run lost with its owner is retried: the retry waits its turn like any other run.
      '--retries',
      '2',
      '--backoff',
      '1s',
      '--shell',
      'sleep 3',
    ]);
    expect(added.code, added.stderr).toBe(0);

    // Given its owner has run it twice, skipping the instants in between, and is a moment into a third
    // (so the kill below finds it running even on a busy machine)
    const ids = await Promise.all(homes.map(async (dir) => (await clusterStatus(dir)).node));
    const owner = await waitFor(
      async () => {
        const runs = await runsOf(client, 'slow');
        const running = runs.find((run) => run.state === 'running' && Date.now() - run.startedAt! < 1_000);
        return runs.filter((run) => run.state === 'succeeded').length >= 2 && running ? running.node : null;
      },
      30_000,
      50,
    );
    const ownerIndex = ids.indexOf(owner);
    const survivors = homes.filter((_, index) => index !== ownerIndex);

    // When the owner is killed -9 in the middle of a run, and a run is triggered from another node
    const killedAt = Date.now();
    started[ownerIndex]!.process.kill('SIGKILL');
    const trigger = await sched(survivors[1]!, ['trigger', 'slow', '--json']);
    expect(trigger.code, trigger.stderr).toBe(0);
    const manualId: string = trigger.json.id;

    // Then the triggered run and the scheduled runs after it take turns, on whichever node owns the job now
    await waitFor(
      async () => {
        const runs = await runsOf(client, 'slow');
        const manual = runs.find((run) => run.id === manualId);
        if (manual?.finishedAt == null) return null;
        const after = runs.filter(
          (run) =>
            run.trigger === 'schedule' && run.state === 'succeeded' && run.startedAt! > manual.finishedAt!,
        );
        return after.length >= 2 ? true : null;
      },
      90_000,
      200,
    );
    expect((await sched(survivors[0]!, ['pause', 'slow'])).code).toBe(0);
    const runs = await waitFor(async () => {
      const all = await runsOf(client, 'slow');
      return all.every((run) => FINAL.includes(run.state)) ? all : null;
    }, 30_000);

    const ran = runs.filter((run) => run.startedAt !== null);
    const intervals = ran.map(
      (run) => `${run.id} ${run.trigger} on ${run.node}: ${run.startedAt}–${run.finishedAt}`,
    );
    expect(overlaps(ran), intervals.join('\n')).toBe(0);
    expect(runs.find((run) => run.id === manualId)).toMatchObject({ trigger: 'manual', state: 'succeeded' });
    expect(
      ran.some((run) => run.trigger === 'retry'),
      intervals.join('\n'),
    ).toBe(true);

    // Every instant before the kill either ran or is in the ledger as skipped-overlap, with the reason why
    const { rows: ledger } = await client.query<{ scheduled_for: string; outcome: string; reason: string }>(
      `SELECT o.scheduled_for, o.outcome, o.reason FROM occurrences o JOIN jobs j ON j.id = o.job_id
         WHERE j.name = 'slow'`,
    );
    const skipped = new Map(
      ledger
        .filter((row) => row.outcome === 'skipped-overlap')
        .map((row) => [Number(row.scheduled_for), row.reason]),
    );
    const scheduled = new Set(runs.map((run) => run.scheduledFor));
    const first = Math.min(
      ...runs.filter((run) => run.trigger === 'schedule').map((run) => run.scheduledFor),
    );
    const unaccounted: number[] = [];
    for (let instant = first; instant < killedAt - 1_000; instant += 1_000)
      if (!scheduled.has(instant) && !skipped.has(instant)) unaccounted.push(instant);
    expect(unaccounted).toEqual([]);
    expect(
      [...skipped.values()].every((reason) => /still running \(--concurrency forbid\)/.test(reason)),
    ).toBe(true);
    // The owner's fires saw the run triggered elsewhere: the instants it covered were skipped for it.
    expect([...skipped.values()].some((reason) => reason.includes(manualId))).toBe(true);
  }, 180_000);

  it('a replace job whose run moves to another node ends the old run there: its process group is gone and it is recorded cancelled, replaced', async () => {
    const database = await postgres.freshDatabase();
    const { homes } = await startNodes(daemons, database.url, 2, (index) => [
      '--label',
      `role=${index === 0 ? 'a' : 'b'}`,
    ]);
    const client = await connect(database.url);
    const [nodeA, nodeB] = await Promise.all(homes.map(async (dir) => (await clusterStatus(dir)).node));
    const added = await sched(homes[1]!, [
      'add',
      'fresh',
      '--every',
      '3s',
      '--concurrency',
      'replace',
      '--on',
      'role=a',
      '--shell',
      'sleep 60',
    ]);
    expect(added.code, added.stderr).toBe(0);

    // Given a run of the job running on node a, its process started
    await waitFor(async () => {
      const runs = await runsOf(client, 'fresh');
      return runs.some((run) => run.node === nodeA && run.state === 'running' && run.pid !== null)
        ? true
        : null;
    }, 30_000);

    // When the job moves to node b, whose next fire replaces it
    const moved = await sched(homes[1]!, ['update', 'fresh', '--on', 'role=b']);
    expect(moved.code, moved.stderr).toBe(0);
    const runs = await waitFor(
      async () => {
        const all = await runsOf(client, 'fresh');
        const onB = all.some((run) => run.node === nodeB && run.state === 'running');
        const aDone = all.filter((run) => run.node === nodeA).every((run) => FINAL.includes(run.state));
        return onB && aDone ? all : null;
      },
      30_000,
      200,
    );

    // Then node a's last run was ended by node b's fire, as a replace on one node records it
    const last = runs.filter((run) => run.node === nodeA).at(-1)!;
    expect(last).toMatchObject({ state: 'cancelled' });
    const replacing = runs.find((run) => run.node === nodeB)!;
    const when = new Date(replacing.scheduledFor).toISOString();
    expect(last.error).toBe(`cancelled: the run of ${when} replaced it (--concurrency replace)`);
    await waitFor(async () => (groupAlive(last.pid!) ? null : true), 10_000);
  }, 120_000);
});

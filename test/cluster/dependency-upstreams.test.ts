import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';
import { shareKeyFile } from './support/federation-nodes.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
const CLUSTER_ARGS = ['--heartbeat-interval', '500ms', '--lease-ttl', '3s'];

interface StoredRun {
  node: string;
  state: string;
  trigger: string;
}

/**
 * A node skips the dependents query for the end of a run of a job that nothing runs after, by what it knows
 * of the jobs others run after. A job added through another node must reach that knowledge, or the node
 * running the upstream would never start the dependent.
 */
describe('dependencies across a federation', () => {
  const { home, start } = useDaemons(afterEach);
  let db: pg.Client | null = null;

  afterEach(async () => {
    await db?.end();
    db = null;
  });

  it('starts a dependent added on one node when its upstream, which had no dependents when the other node started, ends on that other node', async () => {
    const database = await postgres.freshDatabase();
    const [adder, runner] = [home(), home()];
    await start(adder, ['--store', database.url, ...CLUSTER_ARGS, '--label', 'role=adder']);
    shareKeyFile(adder, runner);
    await start(runner, ['--store', database.url, ...CLUSTER_ARGS, '--label', 'role=runner']);
    const runnerNode = await waitFor(async () => {
      const status = await sched(adder, ['cluster', 'status', '--json']);
      const nodes: { alive: boolean; shards: number }[] = status.json?.nodes ?? [];
      if (nodes.filter((node) => node.alive && node.shards > 0).length !== 2) return null;
      return (await sched(runner, ['cluster', 'status', '--json'])).json?.node as string | undefined;
    }, 30_000);
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const runsOf = async (job: string): Promise<StoredRun[]> =>
      (
        await db!.query<StoredRun>(
          `SELECT r.node, r.state, r."trigger" FROM runs r JOIN jobs j ON j.id = r.job_id
           WHERE j.name = $1 ORDER BY r.created_at`,
          [job],
        )
      ).rows;
    const settled = (job: string, count: number) =>
      waitFor(async () => {
        const runs = await runsOf(job);
        return runs.length >= count && runs.every((run) => !['scheduled', 'running'].includes(run.state))
          ? runs
          : null;
      }, 30_000);
    const ok = (result: { code: number; stderr: string }) => expect(result.code, result.stderr).toBe(0);

    // Given an upstream that runs on the runner node and, when that node started, had no dependents
    ok(
      await sched(adder, [
        'add',
        'upstream',
        '--cron',
        '0 0 1 1 *',
        '--on',
        'role=runner',
        '--shell',
        'true',
      ]),
    );
    ok(await sched(adder, ['trigger', 'upstream']));
    expect(await settled('upstream', 1)).toEqual([
      { node: runnerNode, state: 'succeeded', trigger: 'manual' },
    ]);
    expect(await runsOf('downstream')).toEqual([]);

    // When a dependent is added through the other node, and the upstream runs again on the runner node
    ok(await sched(adder, ['add', 'downstream', '--after', 'upstream', '--shell', 'true']));
    // The runner hears of the new job through the store's announcement, a moment after the add.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    ok(await sched(adder, ['trigger', 'upstream']));

    // Then the dependent runs once, started by the upstream's end
    const upstream = await settled('upstream', 2);
    expect(upstream[1]).toMatchObject({ node: runnerNode, state: 'succeeded' });
    const downstream = await settled('downstream', 1);
    expect(downstream).toEqual([expect.objectContaining({ state: 'succeeded', trigger: 'dependency' })]);
  });
});

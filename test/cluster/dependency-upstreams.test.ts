import { afterEach, describe, expect, it } from 'vitest';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';
import { clusterStatus, startNodes } from './support/federation-nodes.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();

/**
 * A node skips the dependents query for the end of a run of a job that nothing runs after, by what it knows
 * of the jobs others run after. A job added through another node must reach that knowledge, or the node
 * running the upstream would never start the dependent.
 */
describe('dependencies across a federation', () => {
  const daemons = useDaemons(afterEach);

  /** The job's runs, oldest first, as `sched history` shows them on `home`, once `count` have ended. */
  const settled = (home: string, job: string, count: number) =>
    waitFor(async () => {
      const history = await sched(home, ['history', job, '--json']);
      const runs: { node: string; state: string; trigger: string }[] = history.json?.items ?? [];
      const ended = runs.filter((run) => !['scheduled', 'running'].includes(run.state));
      return ended.length >= count && ended.length === runs.length ? ended.reverse() : null;
    }, 30_000);
  const ok = (result: { code: number; stderr: string }) => expect(result.code, result.stderr).toBe(0);

  it('starts a dependent added on one node when its upstream, which had no dependents when the other node started, ends on that other node', async () => {
    const database = await postgres.freshDatabase();
    const roles = ['adder', 'runner'];
    const { homes } = await startNodes(daemons, database.url, 2, (index) => [
      '--label',
      `role=${roles[index]}`,
    ]);
    const [adder, runner] = homes as [string, string];
    const runnerNode = (await clusterStatus(runner)).node;

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
    expect(await settled(adder, 'upstream', 1)).toEqual([
      expect.objectContaining({ node: runnerNode, state: 'succeeded', trigger: 'manual' }),
    ]);

    // When a dependent is added through the other node, and the upstream runs again on the runner node
    ok(await sched(adder, ['add', 'downstream', '--after', 'upstream', '--shell', 'true']));
    // The runner hears of the new job through the store's announcement, a moment after the add.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    ok(await sched(adder, ['trigger', 'upstream']));

    // Then the dependent runs once, started by the upstream's end
    const upstream = await settled(adder, 'upstream', 2);
    expect(upstream[1]).toMatchObject({ node: runnerNode, state: 'succeeded' });
    const downstream = await settled(adder, 'downstream', 1);
    expect(downstream).toEqual([expect.objectContaining({ state: 'succeeded', trigger: 'dependency' })]);
  });
});

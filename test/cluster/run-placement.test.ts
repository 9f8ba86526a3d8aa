import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';
import { shareKeyFile } from './support/federation-nodes.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
const CLUSTER_ARGS = ['--heartbeat-interval', '500ms', '--lease-ttl', '3s'];
const HOUR = 3_600_000;
/**
 * Jobs here run only when a test asks: an hourly schedule fired at the top of an hour a test spanned, and
 * that run was taken for the one the test asked for.
 */
const NEVER_DURING_A_TEST = '0 0 1 1 *';

interface StoredRun {
  id: string;
  node: string;
  state: string;
  trigger: string;
  attempt: number;
  stdout: string;
}

/**
 * Runs asked for by hand go where the job's placement says, whichever node was asked: three daemons on
 * one PostgreSQL, two labelled role=web and one role=db. Each job prints $SCHED_HOME, the home of the
 * daemon whose process ran it, so the test sees where it really ran, not only what the store says.
 */
describe('where a manual run executes in a federation', () => {
  const { home, start } = useDaemons(afterEach);
  let db: pg.Client | null = null;

  afterEach(async () => {
    await db?.end();
    db = null;
  });

  async function startCluster() {
    const database = await postgres.freshDatabase();
    const roles = ['web', 'web', 'db'];
    const homes = roles.map(() => home());
    const argsOf = (index: number) => [
      '--store',
      database.url,
      ...CLUSTER_ARGS,
      '--label',
      `role=${roles[index]}`,
    ];
    const daemons = [];
    for (const [index, dir] of homes.entries()) {
      if (index > 0) shareKeyFile(homes[0]!, dir);
      daemons.push(await start(dir, argsOf(index)));
    }
    const ids = await waitFor(async () => {
      const status = await sched(homes[0]!, ['cluster', 'status', '--json']);
      const nodes: { alive: boolean; shards: number }[] = status.json?.nodes ?? [];
      if (nodes.filter((node) => node.alive && node.shards > 0).length !== 3) return null;
      return Promise.all(
        homes.map(async (dir) => (await sched(dir, ['cluster', 'status', '--json'])).json.node as string),
      );
    }, 30_000);
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
    return {
      web: homes[0]!,
      otherWeb: homes[1]!,
      dbHome: homes[2]!,
      dbNode: ids[2]!,
      dbDaemon: daemons[2]!,
      restartDb: () => start(homes[2]!, argsOf(2)),
    };
  }

  const runsOf = async (job: string): Promise<StoredRun[]> =>
    (
      await db!.query<StoredRun>(
        `SELECT r.id, r.node, r.state, r."trigger", r.attempt, convert_from(r.stdout_tail, 'UTF8') AS stdout
         FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.name = $1 ORDER BY r.created_at, r.attempt`,
        [job],
      )
    ).rows;
  const finished = (job: string, count: number) =>
    waitFor(async () => {
      const runs = await runsOf(job);
      return runs.length >= count && runs.every((run) => !['scheduled', 'running'].includes(run.state))
        ? runs
        : null;
    }, 30_000);
  const ok = (result: { code: number; stderr: string }) => expect(result.code, result.stderr).toBe(0);

  it('runs a trigger, a retry, a backfill and an --after run of an --on role=db job on the db node, asked on a web node', async () => {
    const { web, otherWeb, dbHome, dbNode } = await startCluster();
    // The two whole hours before this one: backfilled below, and not due again until tomorrow.
    const thisHour = Math.floor(Date.now() / HOUR) * HOUR;
    const backfillHours = {
      cron: `0 ${new Date(thisHour - 2 * HOUR).getUTCHours()},${new Date(thisHour - HOUR).getUTCHours()} * * *`,
      from: new Date(thisHour - 3 * HOUR + 1).toISOString(),
      to: new Date(thisHour - 1).toISOString(),
    };
    ok(
      await sched(web, [
        'add',
        'vacuum',
        '--cron',
        backfillHours.cron,
        '--tz',
        'UTC',
        '--on',
        'role=db',
        '--shell',
        'echo "$SCHED_HOME"',
      ]),
    );
    ok(
      await sched(web, [
        'add',
        'flaky',
        '--cron',
        NEVER_DURING_A_TEST,
        '--on',
        'role=db',
        '--shell',
        'echo "$SCHED_HOME"; exit 1',
      ]),
    );
    ok(
      await sched(web, [
        'add',
        'upstream',
        '--cron',
        NEVER_DURING_A_TEST,
        '--on',
        'role=web',
        '--shell',
        'true',
      ]),
    );
    ok(
      await sched(web, [
        'add',
        'downstream',
        '--after',
        'upstream',
        '--on',
        'role=db',
        '--shell',
        'echo "$SCHED_HOME"',
      ]),
    );

    // A trigger answers at once with the run's id; the run is the db node's.
    const triggered = await sched(web, ['trigger', 'vacuum', '--json']);
    ok(triggered);
    expect(triggered.json.node).toBe(dbNode);
    const [vacuum] = await finished('vacuum', 1);
    expect(vacuum).toMatchObject({ id: triggered.json.id, node: dbNode, state: 'succeeded' });
    expect(vacuum!.stdout.trim()).toBe(dbHome);

    // A retry asked on the other web node runs on the db node too.
    ok(await sched(otherWeb, ['trigger', 'flaky']));
    const [failed] = await finished('flaky', 1);
    expect(failed!.state).toBe('failed');
    const retried = await sched(otherWeb, ['retry', failed!.id, '--json']);
    ok(retried);
    const attempts = await finished('flaky', 2);
    expect(attempts[1]).toMatchObject({ id: retried.json.id, attempt: 2, node: dbNode, trigger: 'retry' });
    expect(attempts[1]!.stdout.trim()).toBe(dbHome);

    // A backfill of three past hours: each instant runs once, on the db node.
    const { from, to } = backfillHours;
    ok(await sched(web, ['backfill', 'vacuum', '--from', from, '--to', to]));
    const backfilled = (await finished('vacuum', 3)).filter((run) => run.trigger === 'backfill');
    expect(backfilled).toHaveLength(2);
    for (const run of backfilled)
      expect(run).toMatchObject({ node: dbNode, state: 'succeeded', stdout: `${dbHome}\n` });

    // The upstream runs on a web node; the run it sets off goes to the db node.
    ok(await sched(web, ['trigger', 'upstream']));
    const [upstream] = await finished('upstream', 1);
    expect(upstream!.node).not.toBe(dbNode);
    const [downstream] = await finished('downstream', 1);
    expect(downstream).toMatchObject({ node: dbNode, trigger: 'dependency', state: 'succeeded' });
    expect(downstream!.stdout.trim()).toBe(dbHome);
  }, 150_000);

  it('runs a triggered every-host job on every node, each run its own, answering with the asked node’s run', async () => {
    const { web, otherWeb, dbHome } = await startCluster();
    ok(
      await sched(web, [
        'add',
        'rotate',
        '--cron',
        NEVER_DURING_A_TEST,
        '--placement',
        'every-host',
        '--shell',
        'echo "$SCHED_HOME"',
      ]),
    );
    const triggered = await sched(web, ['trigger', 'rotate', '--json']);
    ok(triggered);
    const runs = await finished('rotate', 3);
    expect(new Set(runs.map((run) => run.node)).size).toBe(3);
    expect(runs.map((run) => run.stdout.trim()).sort()).toEqual([web, otherWeb, dbHome].sort());
    // The trigger answers with the run of the node that was asked.
    expect(runs.find((run) => run.id === triggered.json.id)!.stdout.trim()).toBe(web);
  }, 120_000);

  it('retries a lost run of an --on role=db job on the db node when it is back, never on a web node', async () => {
    const { web, dbHome, dbNode, dbDaemon, restartDb } = await startCluster();
    ok(
      await sched(web, [
        'add',
        'migrate',
        '--cron',
        NEVER_DURING_A_TEST,
        '--on',
        'role=db',
        '--retries',
        '1',
        '--backoff',
        '0s',
        '--shell',
        'echo "$SCHED_HOME"; [ "$SCHED_ATTEMPT" = 1 ] && exec sleep 60; true',
      ]),
    );
    const triggered = await sched(web, ['trigger', 'migrate', '--json']);
    ok(triggered);
    await waitFor(async () => ((await runsOf('migrate'))[0]?.state === 'running' ? true : null), 30_000);
    await dbDaemon.stop('SIGKILL');
    // The other nodes record the db node's run lost once it stops heartbeating; no web node may retry it.
    await waitFor(async () => ((await runsOf('migrate'))[0]?.state === 'lost' ? true : null), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const meanwhile = await runsOf('migrate');
    expect(meanwhile.filter((run) => run.state === 'running' || run.state === 'succeeded')).toEqual([]);

    await restartDb();
    const [, retry] = await finished('migrate', 2);
    expect(retry).toMatchObject({ attempt: 2, node: dbNode, state: 'succeeded', trigger: 'retry' });
    expect(retry!.stdout.trim()).toBe(dbHome);
  }, 150_000);

  it('kills a run on the db node when asked on a web node: its process is gone and the run ends killed', async () => {
    const { web, dbNode } = await startCluster();
    const pidFile = path.join(web, 'job.pid');
    ok(
      await sched(web, [
        'add',
        'long',
        '--cron',
        NEVER_DURING_A_TEST,
        '--on',
        'role=db',
        '--shell',
        `echo $$ > '${pidFile}'; exec sleep 120`,
      ]),
    );
    const triggered = await sched(web, ['trigger', 'long', '--json']);
    ok(triggered);
    const pid = await waitFor(async () => {
      const text = fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8').trim() : '';
      return text === '' ? null : Number(text);
    }, 30_000);
    const [running] = await runsOf('long');
    expect(running).toMatchObject({ node: dbNode, state: 'running' });

    const killed = await sched(web, ['kill', triggered.json.id, '--json']);
    ok(killed);
    expect(killed.json.state).toBe('cancelled');
    expect(killed.json.error).toContain('sched kill');
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await waitFor(async () => !alive(), 10_000);
  }, 120_000);

  it('refuses a run that no live node may execute, says which labels it needs, and stores nothing', async () => {
    const { web } = await startCluster();
    ok(
      await sched(web, [
        'add',
        'train',
        '--cron',
        NEVER_DURING_A_TEST,
        '--on',
        'role=gpu',
        '--shell',
        'true',
      ]),
    );
    const refused = await sched(web, ['trigger', 'train', '--json']);
    expect(refused.code).toBe(4);
    expect(refused.json.error.code).toBe('NO_MATCHING_NODE');
    expect(refused.json.error.message).toContain('role=gpu');
    expect(refused.json.error.hint).toContain('--label role=gpu');
    const plain = await sched(web, ['trigger', 'train']);
    expect(plain.code).toBe(4);
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    expect(await runsOf('train')).toEqual([]);
  }, 90_000);
});

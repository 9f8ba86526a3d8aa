import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRoot, onlyRootMakesOtherUsers, rawRequestsAs, schedAs } from '../support/os-users.js';
import { useMultiUserDaemon } from '../support/multi-user-daemon.js';
import { requestsInTurn } from '../support/raw-socket.js';
import { sched, useDaemons, waitFor, type RunningDaemon } from '../support/sched-harness.js';

/** Names of this file's own (see os-users.ts): files run in parallel. */
const SOCKET_GROUP = 'sched-t-rl-socket';
const OPERATOR = 'sched-t-rl-op';

interface RunRow {
  trigger: string;
}

function metricsBase(daemon: RunningDaemon): string {
  const started = daemon
    .output()
    .split('\n')
    .find((line) => line.includes('"daemon:started"'))!;
  return `http://${JSON.parse(started).metricsAddress as string}`;
}

/** The value of `sched_requests_rate_limited_total{verb,user}` in the daemon's /metrics (0 when absent). */
async function rateLimitedCount(base: string, verb: string, user: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (candidate) =>
        candidate.startsWith('sched_requests_rate_limited_total{') &&
        candidate.includes(`verb="${verb}"`) &&
        candidate.includes(`user="${user}"`),
    );
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

/** `count` requests of `method` on one connection, in turn, as the process running the tests. */
function burst(socketPath: string, method: string, params: object, count: number): Promise<unknown[]> {
  return requestsInTurn(
    socketPath,
    Array.from({ length: count }, (_, i) => ({ kind: 'request', id: i + 1, method, params })),
  );
}

const refusedAsRateLimited = (reply: unknown) =>
  (reply as { ok: boolean; error?: { code: string } }).error?.code === 'RATE_LIMITED';

describe('rate limits on a daemon run by root for an operator', () => {
  // [limits] left out: the defaults (trigger: 10 a minute for each job) are what is tested.
  const shared = useMultiUserDaemon({
    accounts: { groups: [SOCKET_GROUP], users: { [OPERATOR]: [SOCKET_GROUP] } },
    socketGroup: SOCKET_GROUP,
    config: ['[access]', `operators = ["${OPERATOR}"]`],
    args: ['--metrics', '127.0.0.1:0'],
  });
  const base = () => metricsBase(shared.daemon!);

  const asRoot = (args: string[]) => sched(shared.home, args, { env: { SCHED_SOCKET: shared.socketPath } });
  const runsOf = async (job: string): Promise<RunRow[]> =>
    (await asRoot(['history', job, '--limit', '1000', '--json'])).json.items;

  it('given an operator’s job firing every second, 11 triggers in a minute: the 11th is refused with the wait, it starts no run, and firing goes on untouched', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const added = await schedAs(OPERATOR, shared.socketPath, [
      'add',
      'tick',
      '--every',
      '1s',
      '--json',
      '--',
      'true',
    ]);
    expect(added.code).toBe(0);

    // Ten in turn on one connection, so that no token comes back (one each 6 s) before the eleventh.
    const ten = await rawRequestsAs(
      OPERATOR,
      shared.socketPath,
      Array.from({ length: 10 }, (_, i) => ({
        kind: 'request',
        id: i + 1,
        method: 'job.trigger',
        params: { ref: 'tick' },
      })),
    );
    const eleventh = await schedAs(OPERATOR, shared.socketPath, ['trigger', 'tick', '--json']);

    expect(ten.every((reply) => (reply as { ok: boolean }).ok)).toBe(true);
    expect(eleventh.code).toBe(6);
    expect(eleventh.json.error.code).toBe('RATE_LIMITED');
    expect(eleventh.json.error.message).toMatch(
      /Too many manual runs of this job by sched-t-rl-op: at most 10 a minute for each job\. Try again in \d s; nothing was done\./,
    );
    expect(eleventh.json.error.details).toMatchObject({ verb: 'trigger', limitPerMinute: 10 });
    expect(eleventh.json.error.details.retryAfterMs).toBeGreaterThan(0);
    expect(eleventh.json.error.details.retryAfterMs).toBeLessThanOrEqual(6_000);

    const manual = (await runsOf('tick')).filter((run) => run.trigger === 'manual');
    expect(manual).toHaveLength(10);
    const audited = (await asRoot(['audit', 'tick', '--json', '--limit', '100'])).json.items.filter(
      (entry: { action: string }) => entry.action === 'job.trigger',
    );
    expect(audited).toHaveLength(10);

    const scheduled = async () => (await runsOf('tick')).filter((run) => run.trigger === 'schedule').length;
    const firedBefore = await scheduled();
    await waitFor(async () => (await scheduled()) >= firedBefore + 3, 30_000);
  });

  it('counts the refusal in /metrics, by verb and caller', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    expect(await rateLimitedCount(base(), 'trigger', OPERATOR)).toBe(1);
  });

  it('given root, an admin, triggers the same job past the limit: admins are exempt by default', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const replies = await burst(shared.socketPath, 'job.trigger', { ref: 'tick' }, 12);
    expect(replies.filter(refusedAsRateLimited)).toEqual([]);
    expect(replies.every((reply) => (reply as { ok: boolean }).ok)).toBe(true);
    expect(await rateLimitedCount(base(), 'trigger', 'root')).toBe(0);
  });
});

describe('rate limits seen by the daemon’s own user (root or not)', () => {
  const { home, start } = useDaemons(afterAll);
  const me = os.userInfo().username;

  it('given the defaults, a burst of 300 listings (sched ls in a watch loop) is never refused', async () => {
    const dir = home();
    await start(dir);
    const replies = await burst(path.join(dir, 'sched.sock'), 'job.list', {}, 300);
    expect(replies).toHaveLength(300);
    expect(replies.filter(refusedAsRateLimited)).toEqual([]);
  });

  it('given exempt_admins = false and create = 1, the second add is refused with the wait, stores nothing and is counted', async () => {
    const dir = home();
    fs.writeFileSync(path.join(dir, 'config.toml'), '[limits]\ncreate = 1\nexempt_admins = false\n');
    const base = metricsBase(await start(dir, ['--metrics', '127.0.0.1:0']));
    expect((await sched(dir, ['add', 'first', '--every', '1h', '--', 'true'])).code).toBe(0);

    const second = await sched(dir, ['add', 'second', '--every', '1h', '--', 'true']);

    expect(second.code).toBe(6);
    expect(second.stderr).toMatch(
      new RegExp(
        `Too many jobs added by ${me}: at most 1 a minute\\. Try again in \\d+ s; nothing was done\\.`,
      ),
    );
    expect(second.stderr).toMatch(/\[limits\] in the daemon’s config\.toml \(create = 1\)/);
    expect(second.stderr).not.toMatch(/\n\s+at /);
    const names = (await sched(dir, ['ls', '--json'])).json.items.map((job: { name: string }) => job.name);
    expect(names).toEqual(['first']);
    const creates = (await sched(dir, ['audit', '--json'])).json.items.filter(
      (entry: { action: string }) => entry.action === 'job.create',
    );
    expect(creates).toHaveLength(1);
    expect(await rateLimitedCount(base, 'create', me)).toBe(1);
  });

  it('given a bad [limits] value, the daemon does not start and says which key and what it must be', async () => {
    const dir = home();
    fs.writeFileSync(path.join(dir, 'config.toml'), '[limits]\ntrigger = 0\n');

    // Were the value taken, this daemon would run until the timeout stops it.
    const run = await sched(dir, ['daemon', 'run'], { timeoutMs: 30_000 });

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /"limits\.trigger" must be a whole number of requests a minute of each job from 1 to 1,000,000, or "off" \(got 0\)/,
    );
    expect(fs.existsSync(path.join(dir, 'sched.sock'))).toBe(false);
  });
});

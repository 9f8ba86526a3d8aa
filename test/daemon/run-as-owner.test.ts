import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeJobInput } from '../../src/core/normalize.js';
import { newId } from '../../src/store/ids.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { isRoot, onlyRootMakesOtherUsers, schedAs, testAccounts, uidOf } from '../support/os-users.js';
import { schedBin, sched, waitFor, type CliResult } from '../support/sched-harness.js';
import { useSharedDaemon, type SharedDaemon } from '../support/shared-daemon.js';

/**
 * Jobs run as their owner: by a daemon run by root, and refused by one that is not. Its users (see
 * os-users.ts): an operator with a supplementary group their jobs must have too, an operator whose account
 * is deleted once their job is stored, and the user a daemon that is not root runs as.
 */
const SOCKET_GROUP = 'sched-t-ro-sock';
const EXTRA_GROUP = 'sched-t-ro-extra';
const OPERATOR = 'sched-t-ro-op';
const LEAVER = 'sched-t-ro-gone';
const DAEMON_USER = 'sched-t-ro-daemon';

const accounts = testAccounts({
  groups: [SOCKET_GROUP, EXTRA_GROUP],
  users: {
    [OPERATOR]: [SOCKET_GROUP, EXTRA_GROUP],
    [LEAVER]: [SOCKET_GROUP],
    [DAEMON_USER]: [SOCKET_GROUP],
  },
});

/** In the daemon's environment only: a job started as its owner must not see it. */
const DAEMON_ONLY = 'SCHED_T_DAEMON_ONLY';

/** `sched add NAME [FLAGS...] --every 1h --json -- COMMAND...` as `user`. */
function addHourlyAs(
  user: string,
  socketPath: string,
  nameAndFlags: string[],
  command: string[],
): Promise<CliResult> {
  return schedAs(user, socketPath, ['add', ...nameAndFlags, '--every', '1h', '--json', '--', ...command]);
}

/** The run once it has ended, as `sched logs --json` gives it (stdout and error included). */
async function endedRun(
  daemon: SharedDaemon,
  runId: string,
): Promise<{ state: string; stdoutTail: string; error: string | null; pid: number | null }> {
  const ended = await waitFor(async () => {
    const run = (
      await sched(daemon.daemonHome, ['logs', runId, '--json'], { env: { SCHED_SOCKET: daemon.socketPath } })
    ).json;
    return run !== undefined && !['scheduled', 'running'].includes(run.state) ? run : null;
  }, 60_000);
  return ended!;
}

describe('a daemon run by root starts each command job as its owner', () => {
  const daemon = useSharedDaemon({
    accounts,
    socketGroup: SOCKET_GROUP,
    socketOwner: null,
    access: [`operators = ["${OPERATOR}", "${LEAVER}"]`],
    start: (daemonHome, daemons) => daemons.start(daemonHome, [], { [DAEMON_ONLY]: 'root-only' }),
  });

  const asRoot = (args: string[]): Promise<CliResult> =>
    sched(daemon.daemonHome, args, { env: { SCHED_SOCKET: daemon.socketPath } });

  it("given an operator's job, it runs with their uid, gid and supplementary groups, their HOME, USER, LOGNAME and SHELL, and none of the daemon's environment", async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const script =
      'id -u; id -g; id -G; printf "%s|%s|%s|%s|%s|%s\\n" "$HOME" "$USER" "$LOGNAME" "$SHELL" "${' +
      DAEMON_ONLY +
      '-unset}" "$SCHED_JOB_NAME"';
    const added = await addHourlyAs(OPERATOR, daemon.socketPath, 'whoami --env USER=root'.split(' '), [
      'sh',
      '-c',
      script,
    ]);
    expect(added.code).toBe(0);

    const triggered = await schedAs(OPERATOR, daemon.socketPath, ['trigger', 'whoami', '--json']);
    const run = await endedRun(daemon, triggered.json.id);

    expect(run.state).toBe('succeeded');
    const [uid, gid, groups, identity] = run.stdoutTail.trim().split('\n');
    const [, , , , , home, shell] = execFileSync('getent', ['passwd', OPERATOR], { encoding: 'utf8' })
      .trim()
      .split(':');
    const expectedGroups = execFileSync('id', ['-G', OPERATOR], { encoding: 'utf8' }).trim();
    const extraGid = execFileSync('getent', ['group', EXTRA_GROUP], { encoding: 'utf8' }).split(':')[2];
    expect(Number(uid)).toBe(uidOf(OPERATOR));
    expect(gid).toBe(execFileSync('id', ['-g', OPERATOR], { encoding: 'utf8' }).trim());
    expect(groups!.split(' ').sort()).toEqual(expectedGroups.split(' ').sort());
    expect(groups!.split(' ')).toContain(extraGid);
    expect(groups!.split(' ')).not.toContain('0');
    expect(identity).toBe(`${home}|${OPERATOR}|${OPERATOR}|${shell}|unset|whoami`);
  });

  it('says in `sched show` whom the job runs as, with the uid', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const json = await asRoot(['show', 'whoami', '--json']);
    const human = await asRoot(['show', 'whoami']);

    expect(json.json.runsAs).toEqual({ user: OPERATOR, uid: uidOf(OPERATOR), refused: null });
    expect(human.stdout).toMatch(new RegExp(`^Runs as: +${OPERATOR} \\(uid ${uidOf(OPERATOR)}\\)$`, 'm'));
  });

  it('runs a job root owns as root, with the daemon’s environment, as before', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    await asRoot(['add', 'as-root', '--every', '1h', '--', 'sh', '-c', `id -u; echo "$${DAEMON_ONLY}"`]);

    const triggered = await asRoot(['trigger', 'as-root', '--json']);
    const run = await endedRun(daemon, triggered.json.id);

    expect(run.stdoutTail).toBe('0\nroot-only\n');
    expect((await asRoot(['show', 'as-root', '--json'])).json.runsAs).toEqual({
      user: 'root',
      uid: 0,
      refused: null,
    });
  });

  it('given a job whose owner no longer exists, its run fails saying so and never starts, as root or anyone', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const added = await addHourlyAs(LEAVER, daemon.socketPath, ['orphaned'], ['id', '-u']);
    expect(added.code).toBe(0);
    execFileSync('userdel', [LEAVER]);

    const triggered = await asRoot(['trigger', 'orphaned', '--json']);
    const run = await endedRun(daemon, triggered.json.id);

    expect(run).toMatchObject({ state: 'failed', stdoutTail: '', pid: null });
    expect(run.error).toMatch(new RegExp(`cannot start it as ${LEAVER}: no user of that name on this host`));
    const shown = (await asRoot(['show', 'orphaned', '--json'])).json.runsAs;
    expect(shown).toEqual({
      user: LEAVER,
      uid: null,
      refused: `no user named ${LEAVER} on this host`,
    });
  });
});

describe('a daemon that is not root runs its own user’s jobs and refuses others’', () => {
  let seededJob = '';
  const daemon = useSharedDaemon({
    accounts,
    socketGroup: SOCKET_GROUP,
    socketOwner: DAEMON_USER,
    access: [`operators = ["${OPERATOR}"]`],
    start: async (daemonHome, daemons) => {
      // As if imported, or stored while the daemon ran as root: a command job of another user.
      seededJob = await seedJobOwnedBy(daemonHome, OPERATOR);
      execFileSync('chown', ['-R', DAEMON_USER, daemonHome]);
      return daemons.startComposed(daemonHome, 'as-user.mjs', [DAEMON_USER, schedBin, 'daemon', 'run']);
    },
  });

  const asDaemonUser = (args: string[]): Promise<CliResult> => schedAs(DAEMON_USER, daemon.socketPath, args);

  it('given an operator, the command job they add is refused: exit 5 saying the daemon is not root, nothing stored, the refusal audited', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const added = await addHourlyAs(OPERATOR, daemon.socketPath, ['not-here'], ['true']);

    expect(added.code).toBe(5);
    expect(added.json.error.code).toBe('UNAUTHORIZED');
    expect(added.json.error.message).toContain(
      `the job belongs to ${OPERATOR} and this daemon runs as ${DAEMON_USER}, not as root`,
    );
    const names = (await asDaemonUser(['ls', '--json'])).json.items.map((job: { name: string }) => job.name);
    expect(names).not.toContain('not-here');
    const entries: Array<{ actor: string; action: string; after: { method?: string; reason?: string } }> = (
      await asDaemonUser(['audit', '--json'])
    ).json.items;
    const refusal = entries.find(
      (entry) => entry.action === 'access.denied' && entry.actor.startsWith(`${OPERATOR} (uid `),
    );
    expect(refusal?.after).toMatchObject({ method: 'job.add' });
    expect(refusal?.after.reason).toContain('not as root');
  });

  it('given a stored job of another user, its run fails saying why instead of running as the daemon’s user', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const triggered = await asDaemonUser(['trigger', seededJob, '--json']);
    expect(triggered.code).toBe(0);
    const run = await endedRun(daemon, triggered.json.id);

    expect(run).toMatchObject({ state: 'failed', stdoutTail: '', pid: null });
    expect(run.error).toContain(`the job belongs to ${OPERATOR} and this daemon runs as ${DAEMON_USER}`);
    const shown = await asDaemonUser(['show', seededJob, '--json']);
    expect(shown.json.runsAs).toMatchObject({ user: OPERATOR, uid: null });
    expect(shown.json.runsAs.refused).toContain('not as root');
  });

  it('runs its own user’s job as that user', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    await asDaemonUser(['add', 'mine', '--every', '1h', '--', 'id', '-u']);

    const triggered = await asDaemonUser(['trigger', 'mine', '--json']);
    const run = await endedRun(daemon, triggered.json.id);

    expect(run.stdoutTail).toBe(`${uidOf(DAEMON_USER)}\n`);
  });
});

/** Writes a command job owned by `owner` straight into the store of `home`, before its daemon starts. */
async function seedJobOwnedBy(home: string, owner: string): Promise<string> {
  const store = openSqliteStore(path.join(home, 'sched.db'));
  const now = Date.now();
  try {
    const definition = normalizeJobInput(
      { name: 'seeded', every: '1h', argv: ['id', '-u'] },
      { now, defaultTimezone: 'UTC' },
    );
    const job = await store.createJob(
      { id: newId(), definition, owner, now, nextRunAt: now + 3_600_000 },
      { id: newId(), at: now, actor: 'test', action: 'job.create' },
    );
    return job.id;
  } finally {
    await store.close();
  }
}

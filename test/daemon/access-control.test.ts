import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeFrame, REQUEST_LIMITS } from '../../src/ipc/frame-codec.js';
import { isRoot, onlyRootMakesOtherUsers, runAs, schedAs, testAccounts, uidOf } from '../support/os-users.js';
import { sched, useDaemons, waitFor, type CliResult } from '../support/sched-harness.js';
import { useSharedDaemon } from '../support/shared-daemon.js';

/**
 * A daemon run by root for other real users (see os-users.ts); clients run as them with runuser, which gives
 * them their supplementary groups (the socket group) as a login would.
 */
const SOCKET_GROUP = 'sched-t-socket';
/** Named in [access] as `@sched-t-ops`: its members are operators through it. */
const OPERATORS_GROUP = 'sched-t-ops';
const USERS = {
  viewer: 'sched-t-viewer',
  operator: 'sched-t-op1',
  /** An operator through the group OPERATORS_GROUP. */
  otherOperator: 'sched-t-op2',
  admin: 'sched-t-admin',
  /** In the socket group, so it reaches the socket, but named in no [access] list. */
  outsider: 'sched-t-outsider',
  /** Not in the socket group: the socket's mode keeps it out. */
  stranger: 'sched-t-stranger',
} as const;

const accounts = testAccounts({
  groups: [SOCKET_GROUP, OPERATORS_GROUP],
  users: {
    [USERS.viewer]: [SOCKET_GROUP],
    [USERS.operator]: [SOCKET_GROUP],
    [USERS.otherOperator]: [SOCKET_GROUP, OPERATORS_GROUP],
    [USERS.admin]: [SOCKET_GROUP],
    [USERS.outsider]: [SOCKET_GROUP],
    [USERS.stranger]: [],
  },
});

/** Sends one request frame as `user`, with whatever extra fields a lying client adds, and prints the reply. */
async function rawRequestAs(
  user: string,
  socketPath: string,
  message: Record<string, unknown>,
): Promise<CliResult> {
  const script = `
    const socket = require('node:net').connect(process.argv[1]);
    let reply = '';
    socket.on('connect', () => socket.write(process.argv[2]));
    socket.on('data', (chunk) => {
      reply += chunk;
      const end = reply.indexOf('\\f');
      if (end !== -1) { process.stdout.write(reply.slice(0, end)); socket.destroy(); }
    });`;
  const frame = encodeFrame(message, REQUEST_LIMITS).toString('utf8');
  const sent = await runAs(user, [process.execPath, '-e', script, socketPath, frame], socketPath);
  return { ...sent, json: sent.json?.data };
}

describe('who may do what on a daemon run by root for several users', () => {
  const daemon = useSharedDaemon({
    accounts,
    socketGroup: SOCKET_GROUP,
    socketOwner: null,
    access: [
      `viewers = ["${USERS.viewer}"]`,
      `operators = ["${USERS.operator}", "@${OPERATORS_GROUP}"]`,
      `admins = ["${USERS.admin}"]`,
    ],
    start: (home, daemons) => daemons.start(home),
  });

  const audit = async (): Promise<
    Array<{ actor: string; action: string; jobId: string | null; after: unknown }>
  > =>
    (
      await sched(daemon.daemonHome, ['audit', '--json', '--limit', '100'], {
        env: { SCHED_SOCKET: daemon.socketPath },
      })
    ).json.items;

  it('gives the socket the mode and group of the config, and makes its folder passable by that group only', () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const socket = fs.lstatSync(daemon.socketPath);
    const folder = fs.statSync(path.dirname(daemon.socketPath));
    const gid = Number(execFileSync('getent', ['group', SOCKET_GROUP], { encoding: 'utf8' }).split(':')[2]);
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o660);
    expect(socket.gid).toBe(gid);
    expect(folder.mode & 0o777).toBe(0o710);
    expect(folder.gid).toBe(gid);
  });

  it('keeps a user outside the socket group out of the socket altogether', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const result = await schedAs(USERS.stranger, daemon.socketPath, ['ls', '--json']);
    expect(result.code).toBe(7);
    expect(result.json.error.code).toBe('DAEMON_UNAVAILABLE');
  });

  it('given a viewer, they list jobs but cannot add one: exit 5 naming the operator role, nothing stored, the refusal audited', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const listed = await schedAs(USERS.viewer, daemon.socketPath, ['ls', '--json']);
    expect(listed.code).toBe(0);

    const added = await schedAs(USERS.viewer, daemon.socketPath, [
      'add',
      'viewer-job',
      '--every',
      '1h',
      '--json',
      '--',
      'true',
    ]);

    expect(added.code).toBe(5);
    expect(added.json.error.code).toBe('UNAUTHORIZED');
    expect(added.json.error.message).toMatch(/needs the operator role/);
    const all = await sched(daemon.daemonHome, ['ls', '--json'], {
      env: { SCHED_SOCKET: daemon.socketPath },
    });
    expect(all.json.items.map((job: { name: string }) => job.name)).not.toContain('viewer-job');
    const refusal = (await audit()).find(
      (entry) =>
        entry.action === 'access.denied' &&
        entry.actor.startsWith(`${USERS.viewer} (uid ${uidOf(USERS.viewer)}, pid `),
    );
    expect(refusal?.after).toMatchObject({ method: 'job.add', role: 'viewer', needed: 'operator' });
  });

  it('given an operator, API tokens cannot be made, listed or revoked; an admin makes one, audited under their name', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    for (const args of [
      ['token', 'create', '--name', 'op-token', '--role', 'admin'],
      ['token', 'ls'],
      ['token', 'revoke', 'x'],
    ]) {
      const refused = await schedAs(USERS.operator, daemon.socketPath, [...args, '--json']);
      expect(refused.code).toBe(5);
      expect(refused.json.error.message).toMatch(/needs the admin role/);
    }

    const made = await schedAs(USERS.admin, daemon.socketPath, [
      'token',
      'create',
      '--name',
      'admin-made',
      '--role',
      'viewer',
      '--json',
    ]);

    expect(made.code).toBe(0);
    expect(made.json).toMatchObject({ name: 'admin-made', role: 'viewer', owner: 'token:admin-made' });
    const created = (await audit()).find((entry) => entry.action === 'token.create');
    expect(created?.actor).toMatch(new RegExp(`^${USERS.admin} \\(uid ${uidOf(USERS.admin)}, pid \\d+\\)$`));
    expect(JSON.stringify(created)).not.toContain(made.json.token);
  });

  it('given a user in no [access] list, even reading is refused', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const result = await schedAs(USERS.outsider, daemon.socketPath, ['ls', '--json']);
    expect(result.code).toBe(5);
    expect(result.json.error.message).toMatch(/needs the viewer role/);
  });

  it('given an operator, the job they add is theirs, they trigger it, and the audit log names them with uid and pid', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const added = await schedAs(USERS.operator, daemon.socketPath, [
      'add',
      'op-job',
      '--every',
      '1h',
      '--json',
      '--',
      'true',
    ]);
    expect(added.code).toBe(0);
    expect(added.json.owner).toBe(USERS.operator);

    const triggered = await schedAs(USERS.operator, daemon.socketPath, ['trigger', 'op-job', '--json']);
    expect(triggered.code).toBe(0);

    const entries = await audit();
    const actor = new RegExp(`^${USERS.operator} \\(uid ${uidOf(USERS.operator)}, pid \\d+\\)$`);
    const created = entries.find((entry) => entry.action === 'job.create' && entry.jobId === added.json.id);
    const trigger = entries.find((entry) => entry.action === 'job.trigger' && entry.jobId === added.json.id);
    expect(created?.actor).toMatch(actor);
    expect(trigger?.actor).toMatch(actor);
    expect(trigger?.after).toMatchObject({ runId: triggered.json.id });
  });

  it('given another operator, they cannot cancel, pause or retry that job: exit 5, the job unchanged, the refusal audited', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const before = await showJob('op-job');

    const cancelled = await schedAs(USERS.otherOperator, daemon.socketPath, ['cancel', 'op-job', '--json']);
    const paused = await schedAs(USERS.otherOperator, daemon.socketPath, ['pause', 'op-job', '--json']);
    const [run] = (
      await sched(daemon.daemonHome, ['history', 'op-job', '--json'], {
        env: { SCHED_SOCKET: daemon.socketPath },
      })
    ).json.items;
    // A run named by a prefix of its id is its job's too.
    const retried = await schedAs(USERS.otherOperator, daemon.socketPath, [
      'retry',
      run.id.slice(0, 12),
      '--json',
    ]);

    expect(cancelled.code).toBe(5);
    expect(cancelled.json.error).toMatchObject({ code: 'UNAUTHORIZED', details: { needed: 'admin' } });
    expect(cancelled.json.error.message).toMatch(new RegExp(`belongs to ${USERS.operator}`));
    expect(paused.code).toBe(5);
    expect(retried.code).toBe(5);
    const after = await showJob('op-job');
    expect({ state: after.state, version: after.version }).toEqual({
      state: before.state,
      version: before.version,
    });
    const refusals = (await audit()).filter(
      (entry) => entry.action === 'access.denied' && entry.actor.startsWith(`${USERS.otherOperator} (`),
    );
    expect(refusals.map((entry) => (entry.after as { method: string }).method).sort()).toEqual([
      'job.cancel',
      'job.pause',
      'run.retry',
    ]);
    expect(refusals.every((entry) => entry.jobId === before.id)).toBe(true);
  });

  it('given a client that claims to be root in its message, it gains nothing', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const forged = await rawRequestAs(USERS.otherOperator, daemon.socketPath, {
      kind: 'request',
      id: 1,
      method: 'job.cancel',
      params: { ref: 'op-job', uid: 0, user: 'root', caller: { uid: 0, user: 'root' } },
      uid: 0,
      gid: 0,
      user: 'root',
      caller: { uid: 0, gid: 0, pid: 1, user: 'root', groups: ['root'] },
    });
    const forgedAdd = await rawRequestAs(USERS.otherOperator, daemon.socketPath, {
      kind: 'request',
      id: 2,
      method: 'job.add',
      params: { input: { name: 'forged-owner', every: '1h', argv: ['true'], owner: 'root' }, owner: 'root' },
      uid: 0,
      caller: { uid: 0, user: 'root' },
    });

    expect(forged.json).toMatchObject({ id: 1, ok: false, error: { code: 'UNAUTHORIZED' } });
    expect((await showJob('op-job')).state).toBe('active');
    expect(forgedAdd.json).toMatchObject({ id: 2, ok: true, result: { owner: USERS.otherOperator } });
    const refusal = (await audit()).find(
      (entry) =>
        entry.action === 'access.denied' && (entry.after as { method: string }).method === 'job.cancel',
    );
    expect(refusal?.actor).toMatch(
      new RegExp(`^${USERS.otherOperator} \\(uid ${uidOf(USERS.otherOperator)}, `),
    );
  });

  it('lists jobs and runs by owner', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const jobs = await schedAs(USERS.viewer, daemon.socketPath, ['ls', '--owner', USERS.operator, '--json']);
    const runs = await schedAs(USERS.viewer, daemon.socketPath, [
      'history',
      '--owner',
      USERS.operator,
      '--json',
    ]);
    const noneOfRoot = await schedAs(USERS.viewer, daemon.socketPath, [
      'history',
      '--owner',
      'root',
      '--json',
    ]);

    expect(jobs.json.items.map((job: { name: string }) => job.name)).toEqual(['op-job']);
    expect(runs.json.items.length).toBeGreaterThanOrEqual(1);
    expect(runs.json.items.every((run: { jobName: string }) => run.jobName === 'op-job')).toBe(true);
    expect(noneOfRoot.json.items).toEqual([]);
  });

  it('given an operator, cluster keys cannot be listed or changed: exit 5 naming the admin role', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const key = Buffer.alloc(32, 1).toString('base64');
    for (const args of [
      ['cluster', 'keys', 'list'],
      ['cluster', 'keys', 'install', key],
    ]) {
      const refused = await schedAs(USERS.operator, daemon.socketPath, [...args, '--json']);
      expect(refused.code).toBe(5);
      expect(refused.json.error.message).toMatch(/needs the admin role/);
    }
  });

  it('given an operator, stopping the daemon is refused as needing admin', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const stopped = await schedAs(USERS.operator, daemon.socketPath, ['daemon', 'stop', '--json']);
    expect(stopped.code).toBe(5);
    expect(stopped.json.error.message).toMatch(/needs the admin role/);
  });

  it('given an operator, adding or removing a voter is refused as needing admin; an admin passes the role check', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    for (const args of [
      ['cluster', 'join', '10.0.0.4:7946'],
      ['cluster', 'leave'],
    ]) {
      const refused = await schedAs(USERS.operator, daemon.socketPath, [...args, '--json']);
      expect(refused.code).toBe(5);
      expect(refused.json.error.message).toMatch(/needs the admin role/);

      // This daemon is not in peer mode, which only an admin gets far enough to be told.
      const admitted = await schedAs(USERS.admin, daemon.socketPath, [...args, '--json']);
      expect(admitted.code).toBe(4);
      expect(admitted.json.error.message).toMatch(/not in peer mode/);
    }
  });

  it('given an admin, they cancel an operator’s job', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const cancelled = await schedAs(USERS.admin, daemon.socketPath, ['cancel', 'op-job', '--json']);
    expect(cancelled.code).toBe(0);
    await waitFor(async () => (await showJob('op-job')).state === 'cancelled');
  });

  async function showJob(
    name: string,
  ): Promise<{ id: string; state: string; version: number; owner: string }> {
    const shown = await sched(daemon.daemonHome, ['show', name, '--json'], {
      env: { SCHED_SOCKET: daemon.socketPath },
    });
    return shown.json.job;
  }
});

describe('a shared socket, seen by the daemon’s own user (root or not)', () => {
  const { home, start } = useDaemons(afterAll);

  it('gives the socket its own group and 0660, and the job it adds is its own, audited with its uid and pid', async () => {
    const me = os.userInfo();
    const group = execFileSync('id', ['-gn'], { encoding: 'utf8' }).trim();
    const dir = home();
    fs.writeFileSync(path.join(dir, 'config.toml'), `socket_mode = "0660"\nsocket_group = "${group}"\n`);
    await start(dir);

    const socket = fs.statSync(path.join(dir, 'sched.sock'));
    const added = await sched(dir, ['add', 'mine', '--every', '1h', '--json', '--', 'true']);
    const entries = (await sched(dir, ['audit', '--json'])).json.items;

    expect(socket.mode & 0o777).toBe(0o660);
    expect(socket.gid).toBe(me.gid);
    expect(added.json.owner).toBe(me.username);
    const created = entries.find((entry: { action: string }) => entry.action === 'job.create');
    expect(created.actor).toMatch(new RegExp(`^${me.username} \\(uid ${me.uid}, pid \\d+\\)$`));
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { encodeFrame, REQUEST_LIMITS } from '../../src/ipc/frame-codec.js';
import { schedBin, type CliResult } from './sched-harness.js';

/**
 * Real OS users for a daemon run by root for several users: made with useradd (CI runs as root) under
 * fixed names, reused when they exist and removed afterwards by whoever made them. Clients run as them
 * with runuser, which gives them their supplementary groups (the socket group) as a login would. Each
 * test file uses names of its own, since files run in parallel.
 */
export const isRoot = process.getuid!() === 0;

export interface TestAccounts {
  groups: readonly string[];
  /** Each user and the groups it is a member of (beside its own). */
  users: Readonly<Record<string, readonly string[]>>;
}

function exists(kind: 'passwd' | 'group', name: string): boolean {
  return spawnSync('getent', [kind, name]).status === 0;
}

// Another test file may hold the lock on /etc/passwd or /etc/group for a moment (useradd exits 10).
function administer(command: string, args: string[]): void {
  for (let attempt = 1; ; attempt += 1) {
    const done = spawnSync(command, args, { encoding: 'utf8' });
    if (done.status === 0) return;
    if (attempt === 10) throw new Error(`${command} ${args.join(' ')}: ${done.stderr}`);
    spawnSync('sleep', ['0.5']);
  }
}

/** Makes the groups and users that do not exist yet; returns what removes the ones it made. */
export function makeTestAccounts(accounts: TestAccounts): () => void {
  const made: { users: string[]; groups: string[] } = { users: [], groups: [] };
  for (const group of accounts.groups) {
    if (exists('group', group)) continue;
    administer('groupadd', ['--system', group]);
    made.groups.push(group);
  }
  for (const [user, memberOf] of Object.entries(accounts.users)) {
    const groups = memberOf.join(',');
    if (exists('passwd', user)) {
      // Left by an earlier run: given exactly the groups this run expects.
      administer('usermod', ['-G', groups, user]);
      continue;
    }
    const groupFlag = groups === '' ? [] : ['-G', groups];
    administer('useradd', ['--system', '--no-create-home', '-s', '/usr/sbin/nologin', ...groupFlag, user]);
    made.users.push(user);
  }
  return () => {
    for (const user of made.users.splice(0)) spawnSync('userdel', [user]);
    for (const group of made.groups.splice(0)) spawnSync('groupdel', [group]);
  };
}

export function uidOf(user: string): number {
  return Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
}

/**
 * A socket path others can reach: the folder above the socket's is passable by all (the daemon makes the
 * socket's own folder), unlike a test home made 0700.
 */
export function reachableSocketPath(): { socketPath: string; remove: () => void } {
  const socketRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-access-'));
  fs.chmodSync(socketRoot, 0o711);
  return {
    socketPath: path.join(socketRoot, 'run', 'sched.sock'),
    remove: () => fs.rmSync(socketRoot, { recursive: true, force: true }),
  };
}

/** `sched ARGS` as `user`, through the socket at `socketPath`. */
export function schedAs(user: string, socketPath: string, args: string[]): Promise<CliResult> {
  return runAs(user, [process.execPath, schedBin, ...args], socketPath);
}

export function runAs(user: string, argv: string[], socketPath: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawnSync(
      'runuser',
      [
        '-u',
        user,
        '--',
        'env',
        '-i',
        `PATH=${process.env.PATH}`,
        `SCHED_SOCKET=${socketPath}`,
        'NO_COLOR=1',
        ...argv,
      ],
      { encoding: 'utf8', timeout: 60_000, cwd: '/' },
    );
    let json: unknown;
    try {
      json = JSON.parse(child.stdout);
    } catch {
      json = undefined;
    }
    resolve({ code: child.status ?? 1, stdout: child.stdout, stderr: child.stderr, json });
  });
}

/**
 * Sends request messages as `user` on one connection, one after another as each is answered, with
 * whatever extra fields a lying client adds, and returns the replies' messages.
 */
export async function rawRequestsAs(
  user: string,
  socketPath: string,
  messages: ReadonlyArray<Record<string, unknown>>,
): Promise<unknown[]> {
  const script = `
    const socket = require('node:net').connect(process.argv[1]);
    const frames = JSON.parse(process.argv[2]);
    const replies = [];
    let pending = '';
    const sendNext = () => {
      if (replies.length < frames.length) return socket.write(frames[replies.length]);
      process.stdout.write(JSON.stringify(replies));
      socket.destroy();
    };
    socket.on('connect', sendNext);
    socket.on('data', (chunk) => {
      pending += chunk;
      for (let end = pending.indexOf('\\f'); end !== -1; end = pending.indexOf('\\f')) {
        replies.push(JSON.parse(pending.slice(0, end)));
        pending = pending.slice(end + 1);
        sendNext();
      }
    });`;
  const frames = messages.map((message) => encodeFrame(message, REQUEST_LIMITS).toString('utf8'));
  const sent = await runAs(
    user,
    [process.execPath, '-e', script, socketPath, JSON.stringify(frames)],
    socketPath,
  );
  if (!Array.isArray(sent.json)) throw new Error(`no replies as ${user}: ${sent.stderr}`);
  return sent.json.map((reply: { data: unknown }) => reply.data);
}

/**
 * Only root can make the other users these cases need (CI runs as root); without root the case has
 * nothing to run, and cases for the daemon's own user cover what it sees.
 */
export function onlyRootMakesOtherUsers(): void {
  expect(process.getuid!()).not.toBe(0);
}

/** The accounts of `spec`, made by `make` (in a beforeAll) and removed by `remove` when `make` made them. */
export function testAccounts(spec: TestAccounts): { make(): void; remove(): void } {
  let removeMade = (): void => {};
  return {
    make: () => {
      removeMade = makeTestAccounts(spec);
    },
    remove: () => removeMade(),
  };
}

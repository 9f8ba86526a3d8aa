import { execFileSync, spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { schedBin, type CliResult } from './sched-harness.js';

/**
 * Real users and groups for tests of a daemon run by root for others: made with useradd (CI runs as root)
 * under fixed names, reused when they exist (given exactly the groups asked for) and removed afterwards
 * when these made them. Each test file names its own, since files run side by side.
 */
export const isRoot = process.getuid!() === 0;

export interface AccountSpec {
  groups: readonly string[];
  /** Each user with the supplementary groups it is in. */
  users: Readonly<Record<string, readonly string[]>>;
}

export function testAccounts(spec: AccountSpec): { make(): void; remove(): void } {
  const made: { users: string[]; groups: string[] } = { users: [], groups: [] };
  return {
    make(): void {
      for (const group of spec.groups) {
        if (exists('group', group)) continue;
        execFileSync('groupadd', ['--system', group]);
        made.groups.push(group);
      }
      for (const [user, groups] of Object.entries(spec.users)) {
        if (exists('passwd', user)) {
          execFileSync('usermod', ['-G', groups.join(','), user]);
          continue;
        }
        const memberOf = groups.length === 0 ? [] : ['-G', groups.join(',')];
        execFileSync('useradd', [
          '--system',
          '--no-create-home',
          '-s',
          '/usr/sbin/nologin',
          ...memberOf,
          user,
        ]);
        made.users.push(user);
      }
    },
    remove(): void {
      for (const user of made.users.splice(0)) spawnSync('userdel', [user]);
      for (const group of made.groups.splice(0)) spawnSync('groupdel', [group]);
    },
  };
}

function exists(kind: 'passwd' | 'group', name: string): boolean {
  return spawnSync('getent', [kind, name]).status === 0;
}

export function uidOf(user: string): number {
  return Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
}

/** `sched ARGS` as `user`, through the socket at `socketPath`. */
export function schedAs(user: string, socketPath: string, args: string[]): Promise<CliResult> {
  return runAs(user, [process.execPath, schedBin, ...args], socketPath);
}

/**
 * `argv` as `user`, with a clean environment, through runuser, which gives them their supplementary groups
 * (the socket group) as a login would.
 */
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
 * Only root can make the other users these cases need (CI runs as root); without root the case has
 * nothing to run, and cases run by the daemon's own user cover what it sees.
 */
export function onlyRootMakesOtherUsers(): void {
  expect(process.getuid!()).not.toBe(0);
}

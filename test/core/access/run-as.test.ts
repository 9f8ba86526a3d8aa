import { describe, expect, it } from 'vitest';
import { carriedEnvironment, withOwnerIdentity } from '../../../src/core/access/owner-environment.js';
import { runAsFor } from '../../../src/core/access/run-as.js';

describe('whom a command job runs as', () => {
  it('runs a job of the daemon’s own user as the daemon, root or not', () => {
    expect(runAsFor('root', { user: 'root', isRoot: true })).toEqual({ as: 'daemon' });
    expect(runAsFor('ada', { user: 'ada', isRoot: false })).toEqual({ as: 'daemon' });
  });

  it('runs another user’s job as that user on a root daemon', () => {
    expect(runAsFor('ada', { user: 'root', isRoot: true })).toEqual({ as: 'owner', user: 'ada' });
  });

  it('refuses another user’s job on a daemon that is not root, naming both users', () => {
    const decision = runAsFor('ada', { user: 'sched', isRoot: false });
    expect(decision).toMatchObject({ as: 'refused' });
    expect(decision.as === 'refused' && decision.reason).toBe(
      "the job belongs to ada and this daemon runs as sched, not as root, so it can start only sched's jobs",
    );
  });
});

describe('the environment of a job started as its owner', () => {
  it('carries only the search path, locale and time zone of the daemon', () => {
    const carried = carriedEnvironment({
      PATH: '/usr/sbin:/usr/bin',
      LANG: 'C.UTF-8',
      LC_TIME: 'en_GB.UTF-8',
      TZ: 'Europe/Paris',
      HOME: '/root',
      USER: 'root',
      PGPASSWORD: 'secret',
      SCHED_HOME: '/var/lib/sched',
    });
    expect(carried).toEqual({
      PATH: '/usr/sbin:/usr/bin',
      LANG: 'C.UTF-8',
      LC_TIME: 'en_GB.UTF-8',
      TZ: 'Europe/Paris',
    });
  });

  it('gives a default search path when the daemon has none', () => {
    expect(carriedEnvironment({})).toEqual({ PATH: '/usr/local/bin:/usr/bin:/bin' });
  });

  it('adds the owner’s HOME and SHELL beneath the job’s --env, and USER and LOGNAME above it', () => {
    const owner = { name: 'ada', home: '/home/ada', shell: '/bin/zsh' };
    expect(withOwnerIdentity({ PATH: '/bin', A: '1' }, owner)).toEqual({
      PATH: '/bin',
      A: '1',
      HOME: '/home/ada',
      SHELL: '/bin/zsh',
      USER: 'ada',
      LOGNAME: 'ada',
    });
    expect(
      withOwnerIdentity({ HOME: '/srv/ada', SHELL: '/bin/sh', USER: 'root', LOGNAME: 'root' }, owner),
    ).toEqual({ HOME: '/srv/ada', SHELL: '/bin/sh', USER: 'ada', LOGNAME: 'ada' });
  });
});

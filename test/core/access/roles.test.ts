import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  admitsOthers,
  isAdmin,
  roleCovers,
  roleOf,
  type AccessRules,
  type Caller,
} from '../../../src/core/access/roles.js';

const NOBODY_ELSE: AccessRules = { admins: [], operators: [], viewers: [], daemonUser: 'sched' };

function caller(user: string, groups: string[] = [], uid = 1000): Caller {
  return { user, uid, gid: uid, pid: 4242, groups };
}

describe('roles from [access]', () => {
  it('given no [access] lists, the daemon’s user and root are admins and nobody else has a role', () => {
    expect(roleOf(caller('sched', [], 990), NOBODY_ELSE)).toBe('admin');
    expect(roleOf(caller('root', [], 0), NOBODY_ELSE)).toBe('admin');
    expect(roleOf(caller('alice'), NOBODY_ELSE)).toBeNull();
  });

  it('given uid 0 under another name (toor), it is root and an admin', () => {
    expect(isAdmin(caller('toor', [], 0), NOBODY_ELSE)).toBe(true);
  });

  it('given lists that leave out the daemon’s user, it stays an admin', () => {
    const rules = { ...NOBODY_ELSE, admins: ['carol'] };
    expect(isAdmin(caller('sched', [], 990), rules)).toBe(true);
    expect(isAdmin(caller('carol'), rules)).toBe(true);
  });

  it('given a user named in several lists, the highest role wins', () => {
    const rules = { ...NOBODY_ELSE, viewers: ['alice'], operators: ['alice'] };
    expect(roleOf(caller('alice'), rules)).toBe('operator');
  });

  it('given @group entries, members of the group get the role and others do not', () => {
    const rules = { ...NOBODY_ELSE, operators: ['@deploy'], viewers: ['@staff'] };
    expect(roleOf(caller('dave', ['staff', 'deploy']), rules)).toBe('operator');
    expect(roleOf(caller('erin', ['staff']), rules)).toBe('viewer');
    expect(roleOf(caller('frank', ['deployers']), rules)).toBeNull();
  });

  it('given a user whose name is a group’s name, the bare name matches the user only, never the group', () => {
    const rules = { ...NOBODY_ELSE, admins: ['ops'] };
    expect(isAdmin(caller('grace', ['ops']), rules)).toBe(false);
    expect(isAdmin(caller('ops'), rules)).toBe(true);
  });

  it('given an admin list naming @group, its members are admins', () => {
    expect(isAdmin(caller('heidi', ['wheel']), { ...NOBODY_ELSE, admins: ['@wheel'] })).toBe(true);
  });

  it('covers lower roles with higher ones, and nothing with no role', () => {
    expect(roleCovers('admin', 'operator')).toBe(true);
    expect(roleCovers('operator', 'viewer')).toBe(true);
    expect(roleCovers('viewer', 'operator')).toBe(false);
    expect(roleCovers('operator', 'admin')).toBe(false);
    expect(roleCovers(null, 'viewer')).toBe(false);
  });

  it('says the rules admit others only when a list names someone besides the daemon’s user', () => {
    expect(admitsOthers(NOBODY_ELSE)).toBe(false);
    expect(admitsOthers({ ...NOBODY_ELSE, admins: ['sched'] })).toBe(false);
    expect(admitsOthers({ ...NOBODY_ELSE, viewers: ['@staff'] })).toBe(true);
  });

  it('never gives a role to a caller that no list names, whatever its groups', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);
    fc.assert(
      fc.property(
        fc.array(name),
        fc.array(name),
        fc.array(name),
        name,
        fc.array(name),
        (a, o, v, user, groups) => {
          const rules = { admins: a, operators: o, viewers: v, daemonUser: 'sched' };
          const named = [...a, ...o, ...v].some((entry) => entry === user);
          fc.pre(user !== 'sched' && !named);
          expect(roleOf(caller(user, groups), rules)).toBeNull();
        },
      ),
    );
  });

  it('given an API token’s caller, its role is the token’s whatever [access] says of its owner', () => {
    const rules = { ...NOBODY_ELSE, admins: ['alice'] };
    const viewerToken: Caller = { ...caller('alice', [], -1), token: { name: 'ci', role: 'viewer' } };
    const adminToken: Caller = { ...caller('nobody', [], -1), token: { name: 'ops', role: 'admin' } };

    expect(roleOf(viewerToken, rules)).toBe('viewer');
    expect(isAdmin(viewerToken, rules)).toBe(false);
    expect(roleOf(adminToken, NOBODY_ELSE)).toBe('admin');
  });
});

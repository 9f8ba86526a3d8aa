import { describe, expect, it } from 'vitest';
import { decideAccess, type AccessVerb } from '../../../src/core/access/decide-access.js';
import type { AccessRules, Caller } from '../../../src/core/access/roles.js';

const RULES: AccessRules = {
  admins: ['carol'],
  operators: ['olivia', 'oscar', '@deploy'],
  viewers: ['victor'],
  daemonUser: 'sched',
};

function caller(user: string, groups: string[] = []): Caller {
  return { user, uid: 1000 + user.length, gid: 100, pid: 77, groups };
}

const VERBS: AccessVerb[] = ['read', 'add', 'own-job', 'administer'];

function allowed(user: string, verb: AccessVerb, owner: string | null = null, groups: string[] = []) {
  return decideAccess(caller(user, groups), RULES, verb, owner).allowed;
}

describe('who may do what', () => {
  it('given a viewer, reads are allowed and every change is refused, naming the operator or admin role', () => {
    expect(allowed('victor', 'read')).toBe(true);
    expect(decideAccess(caller('victor'), RULES, 'add')).toMatchObject({
      allowed: false,
      role: 'viewer',
      needed: 'operator',
    });
    expect(decideAccess(caller('victor'), RULES, 'own-job', 'victor')).toMatchObject({
      allowed: false,
      needed: 'operator',
    });
    expect(decideAccess(caller('victor'), RULES, 'administer')).toMatchObject({
      allowed: false,
      needed: 'admin',
    });
  });

  it('given an operator, they may read, add, and act on their own jobs', () => {
    expect(allowed('olivia', 'read')).toBe(true);
    expect(allowed('olivia', 'add')).toBe(true);
    expect(allowed('olivia', 'own-job', 'olivia')).toBe(true);
  });

  it('given an operator acting on another’s job, it is refused as needing admin, and says whose it is', () => {
    const decision = decideAccess(caller('olivia'), RULES, 'own-job', 'oscar');
    expect(decision).toMatchObject({ allowed: false, role: 'operator', needed: 'admin' });
    expect(decision.allowed === false && decision.reason).toMatch(/belongs to oscar/);
  });

  it('given an operator acting on the daemon’s own jobs (the ones from before [access]), it is refused', () => {
    expect(allowed('olivia', 'own-job', 'sched')).toBe(false);
  });

  it('given an operator and no such job, the request goes on (to fail as not found)', () => {
    expect(allowed('olivia', 'own-job', null)).toBe(true);
  });

  it('given an operator, administering (stop, backup, backfill, cluster) is refused as needing admin', () => {
    expect(decideAccess(caller('olivia'), RULES, 'administer')).toMatchObject({
      allowed: false,
      needed: 'admin',
    });
  });

  it('given an operator through a group, they act on their own jobs as a named one does', () => {
    expect(allowed('dave', 'own-job', 'dave', ['deploy'])).toBe(true);
    expect(allowed('dave', 'own-job', 'olivia', ['deploy'])).toBe(false);
  });

  it('given an admin, everything is allowed, others’ jobs included', () => {
    for (const verb of VERBS) expect(allowed('carol', verb, 'oscar')).toBe(true);
    for (const verb of VERBS) expect(allowed('sched', verb, 'oscar')).toBe(true);
  });

  it('given root, everything is allowed whatever the lists say', () => {
    const root = { user: 'root', uid: 0, gid: 0, pid: 1, groups: ['root'] };
    for (const verb of VERBS) expect(decideAccess(root, RULES, verb, 'oscar').allowed).toBe(true);
  });

  it('given a user no list names, nothing is allowed, not even reading', () => {
    for (const verb of VERBS) {
      expect(decideAccess(caller('mallory'), RULES, verb, 'mallory')).toMatchObject({
        allowed: false,
        role: null,
      });
    }
    expect(decideAccess(caller('mallory'), RULES, 'read')).toMatchObject({ needed: 'viewer' });
  });

  it('a refusal names the caller and the role they lack', () => {
    const decision = decideAccess(caller('victor'), RULES, 'add');
    expect(decision.allowed === false && decision.reason).toBe(
      'victor has the viewer role; this needs operator',
    );
  });
});

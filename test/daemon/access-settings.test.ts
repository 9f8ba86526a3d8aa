import { describe, expect, it } from 'vitest';
import { accessControl, SINGLE_USER } from '../../src/daemon/access/access-control.js';

const NO_PEER_CREDENTIALS = { reason: 'this platform offers neither SO_PEERCRED nor getpeereid' };

describe('starting with access settings', () => {
  it('given a platform that cannot name a socket’s peer and a socket others may open, the daemon refuses to start and says why', () => {
    expect(() => accessControl({ ...SINGLE_USER, socketMode: 0o660 }, 'sched', NO_PEER_CREDENTIALS)).toThrow(
      /cannot serve several users: this platform offers neither SO_PEERCRED nor getpeereid/,
    );
  });

  it('given such a platform and roles for other users, it refuses too', () => {
    expect(() =>
      accessControl({ ...SINGLE_USER, viewers: ['@staff'] }, 'sched', NO_PEER_CREDENTIALS),
    ).toThrow(/cannot serve several users/);
  });

  it('given such a platform and the single-user defaults, it starts: only its own user can open the socket', () => {
    expect(accessControl(SINGLE_USER, 'sched', NO_PEER_CREDENTIALS).socket).toEqual({
      mode: 0o600,
      gid: null,
    });
  });

  it('given a socket_group that does not exist, it refuses to start naming the group', () => {
    expect(() =>
      accessControl({ ...SINGLE_USER, socketMode: 0o660, socketGroup: 'no-such-group-sched' }, 'sched'),
    ).toThrow(/socket_group names the group "no-such-group-sched", which does not exist/);
  });

  it('given a socket_group by number, it is used as it is', () => {
    expect(accessControl({ ...SINGLE_USER, socketMode: 0o660, socketGroup: 4242 }, 'sched').socket).toEqual({
      mode: 0o660,
      gid: 4242,
    });
  });

  it('says whether a caller is an admin', () => {
    const access = accessControl({ ...SINGLE_USER, admins: ['ada'], viewers: ['vic'] }, 'sched');
    const as = (user: string) => ({ user, uid: 1000, gid: 1000, pid: 1, groups: [] });

    expect(access.callerIsAdmin(as('ada'))).toBe(true);
    expect(access.callerIsAdmin(as('vic'))).toBe(false);
  });
});

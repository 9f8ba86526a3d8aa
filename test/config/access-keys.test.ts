import { describe, expect, it } from 'vitest';
import { parseSocketMode } from '../../src/config/access-keys.js';
import { resolveConfig } from '../../src/config/resolve.js';

const host = { store: 'sqlite:/tmp/sched.db', socket: '/run/user/1000/sched.sock', timezone: 'UTC' };

function fromFile(text: string, env: Record<string, string> = {}) {
  return resolveConfig({ env, flags: {}, file: { path: '/etc/sched/config.toml', text }, host });
}

describe('socket_mode', () => {
  it('reads octal text with or without a leading 0 or 0o, and TOML octal integers', () => {
    expect(parseSocketMode('0660')).toBe(0o660);
    expect(parseSocketMode('660')).toBe(0o660);
    expect(parseSocketMode('0o666')).toBe(0o666);
    expect(parseSocketMode(0o600)).toBe(0o600);
  });

  it('refuses a mode that takes read or write from the owner, or is not a mode', () => {
    expect(parseSocketMode('0460')).toBeNull();
    expect(parseSocketMode('0066')).toBeNull();
    expect(parseSocketMode('0800')).toBeNull();
    expect(parseSocketMode('rw-rw----')).toBeNull();
    expect(parseSocketMode(0o1777 + 1)).toBeNull();
  });
});

describe('[access] and the socket settings in config.toml', () => {
  it('given none, only the daemon’s user and root are meant: a 0600 socket and empty lists', () => {
    const config = fromFile('');
    expect(config.socketMode).toBe(0o600);
    expect(config.socketGroup).toBeNull();
    expect(config.access).toEqual({ admins: [], operators: [], viewers: [] });
  });

  it('given lists of users and @groups, a mode and a group, reads them', () => {
    const config = fromFile(
      [
        'socket_mode = 0o660',
        'socket_group = "sched"',
        '[access]',
        'admins = ["ada"]',
        'operators = ["@deploy", "bob"]',
        'viewers = ["@staff"]',
      ].join('\n'),
    );
    expect(config.socketMode).toBe(0o660);
    expect(config.socketGroup).toBe('sched');
    expect(config.access).toEqual({ admins: ['ada'], operators: ['@deploy', 'bob'], viewers: ['@staff'] });
  });

  it('given the environment, it wins over the file', () => {
    const config = fromFile('socket_mode = "0600"', { SCHED_SOCKET_MODE: '0660', SCHED_SOCKET_GROUP: 'ops' });
    expect(config.socketMode).toBe(0o660);
    expect(config.socketGroup).toBe('ops');
  });

  it('given a list entry that is no user or group name, refuses the file naming the key', () => {
    expect(() => fromFile('[access]\noperators = ["bob smith"]')).toThrow(
      /"access.operators" must be a list of user names and @groups/,
    );
  });

  it('given a mode that locks the owner out, refuses it naming the key', () => {
    expect(() => fromFile('socket_mode = "0060"')).toThrow(/"socket_mode" must be an octal file mode/);
  });
});

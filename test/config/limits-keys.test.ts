import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../../src/core/access/rate-limits.js';
import { resolveConfig } from '../../src/config/resolve.js';

const host = { store: 'sqlite:/tmp/sched.db', socket: '/run/user/1000/sched.sock', timezone: 'UTC' };

function fromFile(text: string) {
  return resolveConfig({ env: {}, flags: {}, file: { path: '/etc/sched/config.toml', text }, host });
}

describe('[limits] in config.toml', () => {
  it('given none, uses the design’s table a minute, admins exempt', () => {
    expect(fromFile('').limits).toEqual({
      perMinute: { create: 100, update: 50, delete: 25, get: 500, list: 200, trigger: 10, history: 100 },
      exemptAdmins: true,
    });
    expect(fromFile('').limits).toEqual(DEFAULT_RATE_LIMITS);
  });

  it('given numbers, "off" or false, and exempt_admins, reads them; a verb not named keeps its default', () => {
    const config = fromFile(
      ['[limits]', 'trigger = 30', 'list = "off"', 'get = false', 'exempt_admins = false'].join('\n'),
    );
    expect(config.limits).toEqual({
      perMinute: { ...DEFAULT_RATE_LIMITS.perMinute, trigger: 30, list: null, get: null },
      exemptAdmins: false,
    });
    expect(config.sources['limits.trigger']).toEqual({ kind: 'file', path: '/etc/sched/config.toml' });
    expect(config.sources['limits.create']).toEqual({ kind: 'default' });
  });

  it.each([
    [
      'trigger = 0',
      /"limits.trigger" must be a whole number of requests a minute of each job from 1 to 1,000,000, or "off" \(got 0\)/,
    ],
    ['create = -5', /"limits.create" must be a whole number of requests a minute from 1 .* \(got -5\)/],
    ['get = 2.5', /"limits.get" must be .* \(got 2.5\)/],
    ['list = "fast"', /"limits.list" must be .* \(got "fast"\)/],
    ['history = 1000001', /"limits.history" must be .* \(got 1000001\)/],
    ['exempt_admins = "yes"', /"limits.exempt_admins" must be true or false \(got "yes"\)/],
  ])('given %s, refuses the file naming the key and what it must be', (line, message) => {
    expect(() => fromFile(`[limits]\n${line}`)).toThrow(message);
  });

  it('given a misspelt verb, refuses it and suggests the key meant', () => {
    expect(() => fromFile('[limits]\ntriger = 5')).toThrow(
      /unknown key "limits.triger" \(did you mean "limits.trigger"\?\)/,
    );
  });
});

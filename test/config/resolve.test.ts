import { describe, expect, it } from 'vitest';
import { configFileCandidates } from '../../src/config/file.js';
import { resolveConfig, type ConfigInputs } from '../../src/config/resolve.js';

const host = {
  store: 'sqlite:/home/u/.local/share/sched/sched.db',
  socket: '/run/user/1000/sched.sock',
  timezone: 'UTC',
};
const FILE = '/home/u/.config/sched/config.toml';

function resolve(overrides: Partial<ConfigInputs> = {}) {
  return resolveConfig({ env: {}, flags: {}, file: null, host, ...overrides });
}

function file(text: string): ConfigInputs['file'] {
  return { path: FILE, text };
}

function errorOf(run: () => unknown): { message: string; code: string; hint?: string } {
  try {
    run();
  } catch (error) {
    return error as { message: string; code: string; hint?: string };
  }
  throw new Error('expected an error');
}

describe('resolveConfig', () => {
  it('uses the defaults when nothing is set', () => {
    const config = resolve();
    expect(config).toMatchObject({
      store: host.store,
      socket: host.socket,
      maxConcurrent: null,
      timezone: 'UTC',
      logLevel: 'info',
      metricsAddress: null,
      retention: { succeededDays: 90, failedDays: 30, maxRunsPerJob: 1000, auditDays: 365, eventDays: 1 },
      file: null,
    });
    expect(Object.values(config.sources).every((source) => source.kind === 'default')).toBe(true);
  });

  it('reads every key from the file, retention from its table', () => {
    const config = resolve({
      file: file(`
store = "sqlite:/srv/sched/sched.db"
socket = "/srv/sched/sched.sock"
max_concurrent = 8
timezone = "Europe/Berlin"
log_level = "debug"
metrics_address = "127.0.0.1:9464"

[retention]
succeeded_days = 7
failed_days = 14
max_runs_per_job = 50
audit_days = 30
`),
    });
    expect(config).toMatchObject({
      store: 'sqlite:/srv/sched/sched.db',
      socket: '/srv/sched/sched.sock',
      maxConcurrent: 8,
      timezone: 'Europe/Berlin',
      logLevel: 'debug',
      metricsAddress: '127.0.0.1:9464',
      retention: { succeededDays: 7, failedDays: 14, maxRunsPerJob: 50, auditDays: 30, eventDays: 1 },
      file: FILE,
    });
    expect(config.sources['retention.failed_days']).toEqual({ kind: 'file', path: FILE });
  });

  it('lets the environment override the file and flags override both', () => {
    const config = resolve({
      file: file('max_concurrent = 2\ntimezone = "Asia/Tokyo"\nlog_level = "warn"'),
      env: { SCHED_MAX_CONCURRENT: '4', SCHED_TZ: 'America/New_York' },
      flags: { max_concurrent: '6' },
    });
    expect(config.maxConcurrent).toBe(6);
    expect(config.sources.max_concurrent).toEqual({ kind: 'flag', name: '--max-concurrent' });
    expect(config.timezone).toBe('America/New_York');
    expect(config.sources.timezone).toEqual({ kind: 'env', name: 'SCHED_TZ' });
    expect(config.logLevel).toBe('warn');
    expect(config.sources.log_level).toEqual({ kind: 'file', path: FILE });
  });

  it('treats an empty environment variable as unset', () => {
    expect(resolve({ env: { SCHED_STORE: '' } }).sources.store).toEqual({ kind: 'default' });
  });

  it('turns metrics off with "off" or false', () => {
    expect(resolve({ file: file('metrics_address = false') }).metricsAddress).toBeNull();
    expect(resolve({ env: { SCHED_METRICS_ADDRESS: 'off' } }).metricsAddress).toBeNull();
    expect(resolve({ flags: { metrics_address: '[::1]:9000' } }).metricsAddress).toBe('[::1]:9000');
  });

  it('names the key, the file and the bad value when a file value is wrong', () => {
    const error = errorOf(() => resolve({ file: file('max_concurrent = "ten"') }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toBe(`${FILE}: "max_concurrent" must be a whole number ≥ 1 (got "ten").`);
  });

  it('names a retention key by its table', () => {
    const error = errorOf(() => resolve({ file: file('[retention]\nfailed_days = 0') }));
    expect(error.message).toContain('"retention.failed_days" must be a whole number of days ≥ 1 (got 0)');
  });

  it('refuses an unknown key and suggests the one that was meant', () => {
    const error = errorOf(() => resolve({ file: file('max_concurent = 3') }));
    expect(error.message).toContain('unknown key "max_concurent" (did you mean "max_concurrent"?)');
  });

  it('names the environment variable or flag that is wrong', () => {
    expect(errorOf(() => resolve({ env: { SCHED_MAX_CONCURRENT: '0' } })).message).toBe(
      'SCHED_MAX_CONCURRENT must be a whole number ≥ 1 (got "0").',
    );
    expect(errorOf(() => resolve({ flags: { timezone: 'Mars/Base' } })).message).toMatch(
      /^--tz must be an IANA time zone/,
    );
    expect(errorOf(() => resolve({ env: { SCHED_METRICS_ADDRESS: 'localhost:99999' } })).message).toMatch(
      /^SCHED_METRICS_ADDRESS must be host:port/,
    );
    expect(errorOf(() => resolve({ env: { SCHED_SOCKET: 'relative/sched.sock' } })).message).toMatch(
      /^SCHED_SOCKET must be an absolute path/,
    );
    expect(errorOf(() => resolve({ env: { SCHED_STORE: 'mysql://db' } })).message).toMatch(
      /^SCHED_STORE must be a store URL/,
    );
  });

  it('reads the members a new peer joins through from [cluster] join, SCHED_PEER_JOIN or --join, and names a bad one', () => {
    const fromFile = resolve({ file: file('[cluster]\njoin = ["10.0.0.1:7946", "10.0.0.2:7946"]') });
    expect(fromFile.cluster).toMatchObject({ peers: [], join: ['10.0.0.1:7946', '10.0.0.2:7946'] });
    expect(resolve({ env: { SCHED_PEER_JOIN: '10.0.0.3:7946, 10.0.0.4:7946' } }).cluster.join).toEqual([
      '10.0.0.3:7946',
      '10.0.0.4:7946',
    ]);
    expect(resolve().cluster.join).toEqual([]);

    expect(errorOf(() => resolve({ flags: { 'cluster.join': '10.0.0.1' } })).message).toMatch(
      /^--join must be a list of host:port, members of the running cluster to join through/,
    );
  });

  it('points at the line and column of broken TOML', () => {
    const error = errorOf(() => resolve({ file: file('log_level = "debug"\nmax_concurrent = \n') }));
    expect(error.message).toMatch(new RegExp(`^${FILE}: line 2, column \\d+: `));
  });

  it('returns a frozen config', () => {
    const config = resolve({ file: file('max_concurrent = 3') });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.retention)).toBe(true);
    expect(Object.isFrozen(config.sources)).toBe(true);
  });
});

describe('configFileCandidates', () => {
  it('uses SCHED_CONFIG alone when it is set', () => {
    expect(configFileCandidates({ SCHED_CONFIG: '/tmp/x.toml' }, '/home/u')).toEqual({
      explicit: true,
      paths: ['/tmp/x.toml'],
    });
  });

  it('looks only in SCHED_HOME when one is set', () => {
    expect(configFileCandidates({ SCHED_HOME: '/srv/sched', XDG_CONFIG_HOME: '/cfg' }, '/home/u')).toEqual({
      explicit: false,
      paths: ['/srv/sched/config.toml'],
    });
  });

  it('looks in XDG_CONFIG_HOME (default ~/.config), then /etc', () => {
    expect(configFileCandidates({}, '/home/u').paths).toEqual([
      '/home/u/.config/sched/config.toml',
      '/etc/sched/config.toml',
    ]);
    expect(configFileCandidates({ XDG_CONFIG_HOME: '/cfg' }, '/home/u').paths[0]).toBe(
      '/cfg/sched/config.toml',
    );
  });
});

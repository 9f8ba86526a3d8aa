import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeHome, removeHome, sched, startDaemon, type RunningDaemon } from '../support/sched-harness.js';

const homes: string[] = [];
const daemons: RunningDaemon[] = [];

afterEach(async () => {
  await Promise.all(daemons.splice(0).map((daemon) => daemon.stop()));
  for (const home of homes.splice(0)) removeHome(home);
});

function home(): string {
  const dir = makeHome('sched-ops-config-');
  homes.push(dir);
  return dir;
}

function writeConfig(dir: string, text: string): string {
  const file = path.join(dir, 'config.toml');
  fs.writeFileSync(file, text);
  return file;
}

describe('sched config show', () => {
  it('takes each value from the flag, else the environment, else the file, else the default', async () => {
    const dir = home();
    const file = writeConfig(
      dir,
      'max_concurrent = 2\ntimezone = "Asia/Tokyo"\nlog_level = "warn"\n\n[retention]\nfailed_days = 7\n',
    );

    const result = await sched(dir, ['config', 'show', '--json', '--max-concurrent', '6'], {
      env: { SCHED_CONFIG: file, SCHED_MAX_CONCURRENT: '4', SCHED_TZ: 'America/New_York' },
    });

    expect(result.code).toBe(0);
    const { settings } = result.json;
    expect(result.json.file).toBe(file);
    expect(settings.max_concurrent).toEqual({ value: 6, source: { kind: 'flag', name: '--max-concurrent' } });
    expect(settings.timezone).toEqual({
      value: 'America/New_York',
      source: { kind: 'env', name: 'SCHED_TZ' },
    });
    expect(settings.log_level).toEqual({ value: 'warn', source: { kind: 'file', path: file } });
    expect(settings['retention.failed_days']).toEqual({ value: 7, source: { kind: 'file', path: file } });
    expect(settings['retention.audit_days']).toEqual({ value: 365, source: { kind: 'default' } });
    expect(settings.socket).toEqual({ value: path.join(dir, 'sched.sock'), source: { kind: 'default' } });
  });

  it('shows people a table with where each value came from', async () => {
    const dir = home();
    const file = writeConfig(dir, 'metrics_address = "127.0.0.1:9464"\n');

    const result = await sched(dir, ['config', 'show'], { env: { SCHED_CONFIG: file } });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Config file: ${file}`);
    expect(result.stdout).toMatch(new RegExp(`metrics_address\\s+127\\.0\\.0\\.1:9464\\s+${file}`));
    expect(result.stdout).toMatch(/max_concurrent\s+no limit\s+default/);
    expect(result.stdout).toMatch(/max_children\s+as the open-file limit allows\s+default/);
  });

  it('names the key and the file of a bad value, and exits 2', async () => {
    const dir = home();
    const file = writeConfig(dir, 'max_concurrent = "ten"\n');

    const result = await sched(dir, ['config', 'show'], { env: { SCHED_CONFIG: file } });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: "max_concurrent" must be a whole number ≥ 1 (got "ten").`);
  });

  it('reports a bad value as a JSON error too', async () => {
    const dir = home();
    const file = writeConfig(dir, '[retention]\nsucceeded_dayz = 3\n');

    const result = await sched(dir, ['config', 'show', '--json'], { env: { SCHED_CONFIG: file } });

    expect(result.code).toBe(2);
    expect(result.json.error.code).toBe('VALIDATION_FAILED');
    expect(result.json.error.message).toContain(
      'unknown key "retention.succeeded_dayz" (did you mean "retention.succeeded_days"?)',
    );
  });

  it('reads config.toml in SCHED_HOME, which holds everything of its daemon', async () => {
    const dir = home();
    writeConfig(dir, 'log_level = "error"\n');

    const result = await sched(dir, ['config', 'show', '--json']);

    expect(result.json.file).toBe(path.join(dir, 'config.toml'));
    expect(result.json.searched).toEqual([path.join(dir, 'config.toml')]);
    expect(result.json.settings.log_level.value).toBe('error');
  });

  it('refuses a SCHED_CONFIG that names no file', async () => {
    const dir = home();
    const result = await sched(dir, ['config', 'show'], {
      env: { SCHED_CONFIG: path.join(dir, 'missing.toml') },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('SCHED_CONFIG names');
  });
});

describe('the socket from config.toml', () => {
  it('is where the daemon listens and where every command looks for it', async () => {
    const dir = home();
    const socket = path.join(dir, 'elsewhere.sock');
    const file = writeConfig(dir, `socket = "${socket}"\n`);
    daemons.push(await startDaemon(dir, [], { SCHED_CONFIG: file }));

    const status = await sched(dir, ['daemon', 'status', '--json'], { env: { SCHED_CONFIG: file } });
    const withoutConfig = await sched(dir, ['daemon', 'status', '--json'], {
      env: { SCHED_CONFIG: path.join(dir, 'none.toml') },
    });

    expect(status.code).toBe(0);
    expect(status.json.socketPath).toBe(socket);
    expect(fs.statSync(socket).isSocket()).toBe(true);
    expect(withoutConfig.code).toBe(2);
  });

  it('gives way to SCHED_SOCKET and to the daemon --socket flag', async () => {
    const dir = home();
    const file = writeConfig(dir, `socket = "${path.join(dir, 'from-file.sock')}"\n`);
    const flagSocket = path.join(dir, 'from-flag.sock');
    daemons.push(await startDaemon(dir, ['--socket', flagSocket], { SCHED_CONFIG: file }));

    const viaFile = await sched(dir, ['daemon', 'status', '--json'], { env: { SCHED_CONFIG: file } });
    const viaEnv = await sched(dir, ['daemon', 'status', '--json'], {
      env: { SCHED_CONFIG: file, SCHED_SOCKET: flagSocket },
    });

    expect(viaFile.code).toBe(7);
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.json.socketPath).toBe(flagSocket);
  });

  it('stops a daemon from starting when a setting is wrong, naming the flag', async () => {
    const dir = home();
    const result = await sched(dir, ['daemon', 'run', '--max-concurrent', 'lots']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--max-concurrent must be a whole number ≥ 1 (got "lots")');
  });
});

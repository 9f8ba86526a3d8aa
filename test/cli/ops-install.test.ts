import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeHome, removeHome, repoRoot, sched } from '../support/sched-harness.js';
import { childEnv } from '../support/child-env.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) removeHome(home);
});

function home(): string {
  const dir = makeHome('sched-ops-install-');
  homes.push(dir);
  return dir;
}

function hasSystemdAnalyze(): boolean {
  try {
    execFileSync('systemd-analyze', ['--version'], { stdio: 'ignore', env: childEnv() });
    return true;
  } catch {
    return false;
  }
}

function verify(unitFile: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('systemd-analyze', ['verify', unitFile], { env: childEnv() }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

const analyze = hasSystemdAnalyze();
const checkedBy = analyze ? 'systemd-analyze verify' : 'its content (systemd-analyze is not installed here)';

function expectServiceContent(unit: string, scope: 'user' | 'system'): void {
  const lines = unit.split('\n');
  expect(lines).toContain(
    `ExecStart=${process.execPath} ${path.join(repoRoot, 'bin', 'run.js')} daemon run --grace 30s`,
  );
  expect(lines).toEqual(
    expect.arrayContaining([
      '[Unit]',
      '[Service]',
      '[Install]',
      'Restart=on-failure',
      'KillMode=mixed',
      'NoNewPrivileges=yes',
    ]),
  );
  expect(lines).toContain(scope === 'system' ? 'WantedBy=multi-user.target' : 'WantedBy=default.target');
  for (const line of lines.filter((each) => each !== '' && !each.startsWith('#') && !each.startsWith('[')))
    expect(line).toMatch(/^[A-Za-z]+=\S/);
}

describe('sched daemon install', () => {
  it.each(['user', 'system'] as const)(`prints a valid %s unit, checked by ${checkedBy}`, async (scope) => {
    const dir = home();
    const result = await sched(dir, ['daemon', 'install', `--${scope}`, '--print']);

    expect(result.code).toBe(0);
    expectServiceContent(result.stdout, scope);
    if (!analyze) {
      console.info(`systemd-analyze is missing: the ${scope} unit was checked by its content only`);
      return;
    }
    const file = path.join(dir, 'sched.service');
    fs.writeFileSync(file, result.stdout);
    const verdict = await verify(file);
    expect(verdict).toEqual({ code: 0, output: '' });
  });

  it('gives a system daemon fixed state and runtime directories', async () => {
    const result = await sched(home(), ['daemon', 'install', '--system', '--print']);
    expect(result.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'Environment=SCHED_HOME=/var/lib/sched',
        'Environment=SCHED_SOCKET=/run/sched/sched.sock',
        'StateDirectory=sched',
        'RuntimeDirectory=sched',
      ]),
    );
  });

  it('keeps SCHED_HOME and passes --store in a user unit', async () => {
    const dir = home();
    const result = await sched(dir, ['daemon', 'install', '--print', '--store', `sqlite:${dir}/jobs.db`]);
    expect(result.stdout).toContain(`Environment=SCHED_HOME=${dir}\n`);
    expect(result.stdout).toContain(` daemon run --grace 30s --store sqlite:${dir}/jobs.db\n`);
  });

  it('keeps a store password out of the unit, in an environment file only its owner may read', async () => {
    const dir = home();
    const target = path.join(dir, 'systemd');
    const store = 'postgres://sched:s3cret@db.internal/sched';

    const result = await sched(dir, ['daemon', 'install', '--store', store, '--json'], {
      env: { SCHED_SYSTEMD_DIR: target },
    });

    expect(result.code).toBe(0);
    const envFile = path.join(target, 'sched.env');
    expect(result.json.environmentFile).toBe(envFile);
    const unit = fs.readFileSync(path.join(target, 'sched.service'), 'utf8');
    expect(unit).not.toContain('s3cret');
    expect(unit.split('\n')).toContain(`EnvironmentFile=${envFile}`);
    expect(fs.readFileSync(envFile, 'utf8')).toBe(`SCHED_STORE='${store}'\n`);
    expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
    if (analyze) expect(await verify(path.join(target, 'sched.service'))).toEqual({ code: 0, output: '' });
    const printed = await sched(dir, ['daemon', 'install', '--store', store, '--print']);
    expect(printed.stdout).not.toContain('s3cret');
    expect(printed.stderr).toContain('has a password');
  });

  it('writes the unit where SCHED_SYSTEMD_DIR says and prints how to enable it', async () => {
    const dir = home();
    const target = path.join(dir, 'systemd');
    const printed = await sched(dir, ['daemon', 'install', '--print']);

    const result = await sched(dir, ['daemon', 'install', '--json'], { env: { SCHED_SYSTEMD_DIR: target } });

    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({
      scope: 'user',
      path: path.join(target, 'sched.service'),
      written: true,
    });
    expect(result.json.commands).toContain('systemctl --user enable --now sched.service');
    expect(fs.readFileSync(path.join(target, 'sched.service'), 'utf8')).toBe(printed.stdout);
    const human = await sched(dir, ['daemon', 'install'], { env: { SCHED_SYSTEMD_DIR: target } });
    expect(human.stdout).toContain('is already up to date');
    expect(human.stdout).toContain('systemctl --user daemon-reload');
  });

  it('refuses to replace a different unit unless forced', async () => {
    const dir = home();
    const target = path.join(dir, 'systemd');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'sched.service'), '[Service]\nExecStart=/bin/true\n');

    const refused = await sched(dir, ['daemon', 'install'], { env: { SCHED_SYSTEMD_DIR: target } });
    const forced = await sched(dir, ['daemon', 'install', '--force', '--json'], {
      env: { SCHED_SYSTEMD_DIR: target },
    });

    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('already exists and differs');
    expect(forced.code).toBe(0);
    expect(forced.json.written).toBe(true);
  });
});

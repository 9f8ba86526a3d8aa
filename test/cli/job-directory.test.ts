import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFinalRunState } from '../../src/core/run.js';
import { runWhere } from '../support/daemon-probe.js';
import { sched, useDaemons } from '../support/sched-harness.js';

const daemons = useDaemons((cleanup) => afterAll(cleanup));

/** A directory that is neither the daemon's nor this process's, holding an executable script. */
function scriptDirectory(script: string): string {
  const dir = fs.realpathSync(daemons.home());
  fs.writeFileSync(path.join(dir, 'script.sh'), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return dir;
}

async function finishedRun(home: string, job: string) {
  const triggered = await sched(home, ['trigger', job, '--json']);
  expect(triggered.code).toBe(0);
  return runWhere(home, triggered.json.id, (run) => isFinalRunState(run.state));
}

describe('a command job runs in the directory it was added from', () => {
  // The daemon runs in this process's directory, never in the directories the jobs are added from.
  let home: string;

  beforeAll(async () => {
    home = daemons.home();
    await daemons.start(home);
  });

  it('given ./script.sh added from its directory, when the daemon was started elsewhere, then the run finds it and runs there', async () => {
    const dir = scriptDirectory('echo "ran in $(pwd)"');

    const added = await sched(home, ['add', 'local', '--every', '1h', '--json', '--', './script.sh'], {
      cwd: dir,
    });
    expect(added.code).toBe(0);
    expect(added.json.target.cwd).toBe(dir);
    expect(added.json.warnings).toBeUndefined();

    const run = await finishedRun(home, 'local');
    expect(run).toMatchObject({ state: 'succeeded', stdoutTail: `ran in ${dir}\n` });
  });

  it('given a relative --cwd, when added, then it is resolved against the directory sched ran in', async () => {
    const dir = scriptDirectory('true');
    fs.mkdirSync(path.join(dir, 'sub'));

    const added = await sched(home, ['add', 'sub', '--every', '1h', '--cwd', 'sub', '--json', '--', 'true'], {
      cwd: dir,
    });
    expect(added.json.target.cwd).toBe(path.join(dir, 'sub'));
  });

  it('given a program that is not there, when added, then it warns on stderr and in --json but adds the job', async () => {
    const dir = scriptDirectory('true');

    const added = await sched(home, ['add', 'missing', '--every', '1h', '--json', '--', './backup.sh'], {
      cwd: dir,
    });
    expect(added.code).toBe(0);
    const warning = `./backup.sh: not found in ${dir} (the job's working directory)`;
    expect(added.json.warnings).toEqual([warning]);
    expect(added.stderr).toContain(`Warning: ${warning}`);
    expect((await sched(home, ['show', 'missing', '--json'])).code).toBe(0);
  });

  it('given a bare program name that is on no PATH directory, when added, then it warns naming PATH', async () => {
    const added = await sched(home, ['add', 'nowhere', '--every', '1h', '--', 'no-such-program-sched-test']);
    expect(added.code).toBe(0);
    expect(added.stderr).toContain('Warning: no-such-program-sched-test: not found on PATH (');
  });

  it('given a --shell script, when added, then nothing in it is checked', async () => {
    const added = await sched(home, ['add', 'sh', '--every', '1h', '--json', '--shell', './nothing-here.sh']);
    expect(added.code).toBe(0);
    expect(added.json.warnings).toBeUndefined();
    expect(added.stderr).not.toContain('Warning');
  });

  it('given a program missing at run time, when it runs, then the error names the directory it looked in', async () => {
    const dir = scriptDirectory('true');
    await sched(home, ['add', 'gone', '--every', '1h', '--', './backup.sh'], { cwd: dir });

    const run = await finishedRun(home, 'gone');
    expect(run).toMatchObject({ state: 'failed', error: `./backup.sh: not found in ${dir} (cwd) (ENOENT)` });
  });

  it('given a job, when shown, then its working directory is printed', async () => {
    const dir = scriptDirectory('true');
    await sched(home, ['add', 'shown', '--every', '1h', '--', './script.sh'], { cwd: dir });

    const shown = await sched(home, ['show', 'shown']);
    expect(shown.stdout).toMatch(new RegExp(`Working dir:\\s+${dir.replaceAll('/', '\\/')}\\n`));
  });

  it('given a crontab, when imported, then its jobs run in the home directory of the user importing it', async () => {
    const userHome = fs.realpathSync(daemons.home());
    const crontab = path.join(userHome, 'jobs.crontab');
    fs.writeFileSync(crontab, '0 3 * * * ./nightly.sh\n');

    const imported = await sched(home, ['import', 'crontab', crontab, '--yes', '--json'], {
      env: { HOME: userHome },
    });
    expect(imported.code).toBe(0);
    const [job] = (await sched(home, ['ls', '--label', 'source=crontab', '--json'])).json.items;
    expect(job.target.cwd).toBe(userHome);
  });
});

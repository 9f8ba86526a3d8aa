import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sched, useDaemons } from '../support/sched-harness.js';

describe('sched cancel of a job that others run after, through the real CLI and daemon', () => {
  const daemons = useDaemons(afterEach);
  let home: string;

  beforeEach(async () => {
    home = daemons.home();
    await daemons.start(home);
    for (const args of [
      ['add', 'extract', '--every', '1h', '--', 'true'],
      ['add', 'load', '--after', 'extract', '--', 'true'],
      ['add', 'merge', '--after-all', 'extract', '--after-all', 'load', '--', 'true'],
    ]) {
      expect((await sched(home, args)).code).toBe(0);
    }
  });

  it('given jobs that run after extract, when extract is cancelled, then it is refused with exit 4 naming them, and extract stays', async () => {
    const result = await sched(home, ['cancel', 'extract']);

    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      'Error: Job extract was not cancelled: load and merge run after it and would be left waiting for a job that never runs again.',
    );
    expect(result.stderr).toContain('`sched cancel extract --force`');
    expect(result.stdout).toBe('');
    const shown = await sched(home, ['show', 'extract', '--json']);
    expect(shown.json.job).toMatchObject({ state: 'active', version: 1 });
  });

  it('given jobs that run after extract, when extract is cancelled with --json, then the error envelope names them', async () => {
    const result = await sched(home, ['cancel', 'extract', '--json']);

    expect(result.code).toBe(4);
    expect(result.json.error).toMatchObject({
      code: 'HAS_DEPENDENTS',
      details: { job: 'extract', dependents: ['load', 'merge'] },
    });
  });

  it('given jobs that run after extract, when extract is cancelled with --force, then it is cancelled and names what it strands', async () => {
    const result = await sched(home, ['cancel', 'extract', '--force']);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'Cancelled job extract; it will not run again.\n' +
        'These jobs ran after extract and no longer will: load, merge. Adding a new extract does not link them again; use `sched update JOB --after extract`.\n',
    );
    expect((await sched(home, ['show', 'extract', '--json'])).json.job.state).toBe('cancelled');
  });

  it('given jobs that run after extract, when extract is cancelled with --force --json, then the reply lists the stranded jobs', async () => {
    const result = await sched(home, ['cancel', 'extract', '--force', '--json']);

    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ name: 'extract', state: 'cancelled' });
    expect(result.json.stranded.map((job: { name: string }) => job.name)).toEqual(['load', 'merge']);
  });

  it('given a job nothing runs after, when it is cancelled, then it needs no --force and strands nothing', async () => {
    const result = await sched(home, ['cancel', 'merge', '--json']);

    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ name: 'merge', state: 'cancelled', stranded: [] });
  });
});

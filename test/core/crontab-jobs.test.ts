import { describe, expect, it } from 'vitest';
import { parseCrontab } from '../../src/core/crontab/parse.js';
import { planImport } from '../../src/core/crontab/plan.js';
import { crontabJobs } from '../../src/core/crontab/to-jobs.js';
import { normalizeJobInput } from '../../src/core/normalize.js';

const ctx = { now: Date.UTC(2026, 0, 1), defaultTimezone: 'UTC' };

function jobsOf(text: string, options: { timezone?: string } = {}) {
  return crontabJobs(parseCrontab(text).entries, options);
}

describe('crontabJobs', () => {
  it('names a job after its command and what it does, not where it stands', () => {
    const [alone] = jobsOf('0 3 * * * /usr/local/bin/backup.sh --full\n');
    const [moved] = jobsOf(
      '# added a comment\n\n*/5 * * * * other\n0 3 * * * /usr/local/bin/backup.sh --full\n',
    ).slice(1);
    expect(alone?.name).toMatch(/^cron-backup\.sh-full-[0-9a-f]{8}$/);
    expect(moved?.name).toBe(alone?.name);
    expect(moved?.idempotencyKey).toBe(alone?.idempotencyKey);
  });

  it('gives a changed line, and a repeated line, names of their own', () => {
    const [a, b, c] = jobsOf('0 3 * * * backup\n0 3 * * * backup\n0 4 * * * backup\n');
    expect(new Set([a?.name, b?.name, c?.name]).size).toBe(3);
  });

  it('builds inputs the daemon accepts: shell script, zone, variables, label', () => {
    const [job] = jobsOf('CRON_TZ=Europe/Berlin\nFOO=bar\n30 2 * * 1-5 echo "$FOO" | logger%input\n');
    expect(job?.input).toMatchObject({
      cron: '30 2 * * 1-5',
      timezone: 'Europe/Berlin',
      shell: '{\necho "$FOO" | logger\n} <<\'SCHED_CRON_STDIN\'\ninput\nSCHED_CRON_STDIN',
      env: { FOO: 'bar' },
      labels: { source: 'crontab' },
    });
    const definition = normalizeJobInput(job!.input, ctx);
    expect(definition.target).toMatchObject({ kind: 'command', argv: null, env: { FOO: 'bar' } });
  });

  it('runs the command with SHELL when the crontab names another shell', () => {
    const [job] = jobsOf('SHELL=/bin/bash\n0 * * * * echo {a,b}\n');
    expect(job?.input.argv).toEqual(['/bin/bash', '-c', 'echo {a,b}']);
    expect(job?.input.shell).toBeUndefined();
  });

  it('uses the given zone for lines before any CRON_TZ', () => {
    const [first, second] = jobsOf('0 * * * * a\nCRON_TZ=Asia/Tokyo\n0 * * * * b\n', { timezone: 'UTC' });
    expect([first?.input.timezone, second?.input.timezone]).toEqual(['UTC', 'Asia/Tokyo']);
  });
});

describe('planImport', () => {
  it('creates what is missing, skips what is there and reports a name held by another job', () => {
    const plan = planImport(
      [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
      [
        { name: 'b', labels: { source: 'crontab' } },
        { name: 'c', labels: {} },
      ],
      (_item, job) => job.labels.source === 'crontab',
      (item) => `${item.name} is taken`,
    );
    expect(plan).toEqual({
      create: [{ name: 'a' }],
      unchanged: [{ name: 'b' }],
      conflicts: [{ item: { name: 'c' }, reason: 'c is taken' }],
    });
  });
});

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { definitionToInput, sameDefinition } from '../../src/core/crontab/definition-input.js';
import { formatCrontab } from '../../src/core/crontab/format.js';
import { parseCrontab } from '../../src/core/crontab/parse.js';
import { crontabJobs } from '../../src/core/crontab/to-jobs.js';
import type { JobDefinition, JobInput } from '../../src/core/job.js';
import { normalizeJobInput } from '../../src/core/normalize.js';

const ctx = { now: Date.UTC(2026, 0, 1), defaultTimezone: 'UTC' };
const varied = fs.readFileSync(new URL('../config/fixtures/varied.crontab', import.meta.url), 'utf8');

function definitionsOf(crontab: string): JobDefinition[] {
  return crontabJobs(parseCrontab(crontab).entries).map((job) => normalizeJobInput(job.input, ctx));
}

function define(input: Partial<JobInput>): JobDefinition {
  return normalizeJobInput({ name: 'job', cron: '0 * * * *', shell: 'date', ...input } as JobInput, ctx);
}

describe('formatCrontab', () => {
  it('writes the imported jobs of a varied crontab back as a crontab', () => {
    const { text, skipped } = formatCrontab(definitionsOf(varied), { hostTimezone: 'UTC' });
    expect(skipped).toEqual([]);
    expect(text).toBe(
      [
        'PATH=/usr/local/bin:/usr/bin:/bin',
        'HOME=/srv/app',
        '*/5 * * * * /usr/local/bin/poll-queue --quiet',
        '0 2 * * 1-5 /usr/local/bin/backup.sh --full >> /var/log/backup.log 2>&1',
        '30 6 1,15 * * echo "report for $(date +\\%Y-\\%m-\\%d)" | mail -s report boss',
        '15 10 * jan,jul mon-fri /opt/jobs/seasonal.sh',
        '0-30/10 8-18 * * * /opt/jobs/sample.sh',
        '@daily /usr/bin/find /tmp -mtime +7 -delete',
        '@daily echo midnight',
        'CRON_TZ=America/New_York',
        'SHELL=/bin/bash',
        '0 9 * * 1-5 /opt/jobs/market-open.sh',
        '0 */2 * * * mail -s "ping" ops%hello there,%this is the body',
        'CRON_TZ=Europe/Berlin',
        '45 23 * * 7 /opt/jobs/weekly-close.sh',
        '0 5 * * * root /usr/sbin/logrotate /etc/logrotate.conf',
        '',
      ].join('\n'),
    );
  });

  it('is read back into the same jobs', () => {
    const first = definitionsOf(varied);
    const again = definitionsOf(formatCrontab(first, { hostTimezone: 'UTC' }).text);
    expect(again.map(({ description: _d, ...rest }) => rest)).toEqual(
      first.map(({ description: _d, ...rest }) => rest),
    );
  });

  it('explains, in a comment, each job a crontab cannot express', () => {
    const jobs = [
      define({ name: 'tick', cron: undefined, every: '5m' }),
      define({ name: 'once', cron: undefined, at: '2027-01-01T00:00Z' }),
      define({ name: 'hook', shell: undefined, http: 'https://example.com/h' }),
      define({ name: 'fast', cron: '*/10 * * * * *' }),
    ];
    const { text, skipped } = formatCrontab(jobs, { hostTimezone: 'UTC' });
    expect(skipped.map((job) => job.name)).toEqual(['tick', 'once', 'hook', 'fast']);
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .every((line) => line.startsWith('# ')),
    ).toBe(true);
    expect(text).toContain(
      '# hook: not written: it calls GET https://example.com/h, and cron runs commands only',
    );
  });

  it('drops a zero seconds field, comments out a paused job and notes what cron ignores', () => {
    const paused = {
      ...define({
        name: 'p',
        cron: '0 30 9 * * 1',
        timeout: '5m',
        argv: ['/bin/echo', 'a b'],
        shell: undefined,
      }),
      state: 'paused' as const,
    };
    expect(formatCrontab([paused], { hostTimezone: 'UTC' }).text).toBe(
      "# p: cron ignores its timeout\n# paused: 30 9 * * 1 /bin/echo 'a b'\n",
    );
  });

  it('notes a working directory cron would not use, but not the home directory cron runs jobs in', () => {
    const jobs = [define({ name: 'home', cwd: '/home/me' }), define({ name: 'elsewhere', cwd: '/srv/app' })];
    expect(formatCrontab(jobs, { hostTimezone: 'UTC', homeDirectory: '/home/me' }).text).toBe(
      '0 * * * * date\n# elsewhere: cron ignores its working directory (/srv/app)\n0 * * * * date\n',
    );
  });

  it('empties a variable that the next job does not have, since cron cannot unset one', () => {
    const jobs = [define({ name: 'a', env: { A: '1' } }), define({ name: 'b' })];
    expect(formatCrontab(jobs, { hostTimezone: 'UTC' }).text).toBe(
      'A=1\n0 * * * * date\nA=\n0 * * * * date\n',
    );
  });
});

describe('definitionToInput', () => {
  const definitions: [string, Partial<JobInput>][] = [
    [
      'a command job with every field',
      {
        cron: '0 3 * * *',
        timezone: 'Europe/Berlin',
        argv: ['./backup.sh', '--full'],
        shell: undefined,
        cwd: '/srv',
        env: { A: '1' },
        payload: '{"x":[1,2]}',
        timeout: '90s',
        retries: 3,
        backoff: '5s',
        backoffFactor: 1.5,
        backoffMax: '2m',
        jitter: false,
        labels: { team: 'ops' },
        description: 'nightly',
      },
    ],
    ['a one-time job', { cron: undefined, at: '2026-06-01T09:00', timezone: 'Asia/Tokyo' }],
    [
      'an HTTP job',
      {
        shell: undefined,
        http: 'https://example.com/hook',
        method: 'PUT',
        headers: ['Authorization: Bearer x'],
        expect: '200,204',
        breakerFailures: 3,
        breakerCooldown: '1m',
        payload: '{"a":1}',
      },
    ],
    ['an interval job', { cron: undefined, every: '90s' }],
  ];

  it.each(definitions)('re-creates %s exactly', (_what, input) => {
    const definition = define(input);
    expect(normalizeJobInput(definitionToInput(definition), ctx)).toEqual(definition);
  });

  it('re-creates an interval job on its original grid even when imported later', () => {
    const definition = define({ cron: undefined, every: '90s' });
    const later = normalizeJobInput(definitionToInput(definition), { ...ctx, now: ctx.now + 5_000 });
    expect(later.schedule).toEqual({ kind: 'every', intervalMs: 90_000, anchorMs: ctx.now });
    expect(sameDefinition(later, definition)).toBe(true);
  });
});

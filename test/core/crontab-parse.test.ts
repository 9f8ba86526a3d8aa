import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCrontab } from '../../src/core/crontab/parse.js';

const varied = fs.readFileSync(new URL('../config/fixtures/varied.crontab', import.meta.url), 'utf8');

describe('parseCrontab on a varied, real-world crontab', () => {
  const parsed = parseCrontab(varied, { userNames: ['root', 'mail', 'backup'] });
  const byLine = (line: number) => parsed.entries.find((entry) => entry.line === line);

  it('turns every job line into an entry, in order', () => {
    expect(parsed.entries.map((entry) => [entry.line, entry.schedule])).toEqual([
      [7, '*/5 * * * *'],
      [8, '0 2 * * 1-5'],
      [9, '30 6 1,15 * *'],
      [10, '15 10 * jan,jul mon-fri'],
      [11, '0-30/10 8-18 * * *'],
      [13, '@daily'],
      [15, '@daily'],
      [19, '0 9 * * 1-5'],
      [20, '0 */2 * * *'],
      [22, '45 23 * * 7'],
      [24, '0 5 * * *'],
    ]);
  });

  it('lists every line it cannot import, with the reason', () => {
    expect(parsed.unsupported.map((note) => [note.line, note.reason])).toEqual([
      [4, expect.stringContaining('MAILTO is ignored')],
      [14, expect.stringContaining('@reboot runs at boot')],
      [25, 'expected five time fields and a command'],
      [26, expect.stringContaining('the minute field (61) must be between 0 and 59')],
      [27, 'expected five time fields and a command'],
      [29, 'CRON_TZ=Mars/Olympus_Mons is not a time zone sched knows'],
    ]);
  });

  it('gives each job the variables set above it, unquoted', () => {
    expect(byLine(7)?.env).toEqual({ PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/srv/app' });
    expect(byLine(24)?.env).toEqual({ PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/srv/app' });
  });

  it('follows CRON_TZ and SHELL from where they are set', () => {
    expect([byLine(15)?.timezone, byLine(19)?.timezone, byLine(22)?.timezone]).toEqual([
      null,
      'America/New_York',
      'Europe/Berlin',
    ]);
    expect([byLine(15)?.shell, byLine(19)?.shell]).toEqual([null, '/bin/bash']);
  });

  it('reads % as the start of standard input and \\% as a percent sign', () => {
    expect(byLine(9)?.command).toBe('echo "report for $(date +%Y-%m-%d)" | mail -s report boss');
    expect(byLine(9)?.stdin).toBeNull();
    expect(byLine(20)).toMatchObject({
      command: 'mail -s "ping" ops',
      stdin: 'hello there,\nthis is the body\n',
    });
  });

  it('keeps the command as written, after tabs and runs of spaces between fields', () => {
    expect(byLine(10)?.command).toBe('/opt/jobs/seasonal.sh');
    expect(byLine(8)?.command).toBe('/usr/local/bin/backup.sh --full >> /var/log/backup.log 2>&1');
  });

  it('warns about a line that looks like a system crontab line', () => {
    expect(parsed.warnings.map((note) => note.line)).toEqual([24]);
    expect(parsed.warnings[0]?.reason).toContain('--system-format');
  });
});

describe('parseCrontab', () => {
  it('reads the user field of a system crontab', () => {
    const { entries } = parseCrontab('17 * * * * root cd / && run-parts --report /etc/cron.hourly\n', {
      systemFormat: true,
    });
    expect(entries[0]).toMatchObject({
      user: 'root',
      command: 'cd / && run-parts --report /etc/cron.hourly',
    });
  });

  it('warns when a sixth time field would be run as a program', () => {
    const { entries, warnings } = parseCrontab('*/30 * * * * * /bin/echo hi\n');
    expect(entries[0]?.command).toBe('* /bin/echo hi');
    expect(warnings[0]?.reason).toContain('sixth time field');
  });

  it('maps @annually and @midnight to the macros sched knows', () => {
    const { entries } = parseCrontab('@annually a\n@midnight b\n@HOURLY c\n');
    expect(entries.map((entry) => entry.schedule)).toEqual(['@yearly', '@daily', '@hourly']);
  });

  it('refuses an unknown macro and a line without a command', () => {
    const { unsupported } = parseCrontab('@fortnightly a\n@daily\n');
    expect(unsupported.map((note) => note.reason)).toEqual([
      '@fortnightly is not a cron macro',
      'expected a command after @daily',
    ]);
  });

  it('reads CRLF line ends and a SHELL that is plain sh', () => {
    const { entries } = parseCrontab('SHELL=/bin/sh\r\n0 * * * * date\r\n');
    expect(entries[0]).toMatchObject({ line: 2, command: 'date', shell: null });
  });

  it('drops nothing silently: a cronie setting it does not honour is listed', () => {
    const { unsupported } = parseCrontab('RANDOM_DELAY=30\n0 * * * * date\n');
    expect(unsupported[0]).toMatchObject({
      line: 1,
      reason: expect.stringContaining('RANDOM_DELAY is ignored'),
    });
  });
});

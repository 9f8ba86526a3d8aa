import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHome, removeHome, sched, startDaemon, type RunningDaemon } from '../support/sched-harness.js';

const fixture = fileURLToPath(new URL('../config/fixtures/varied.crontab', import.meta.url));
// The fixture's jobs, as a crontab: what is left once comments, MAILTO, @reboot and broken lines are gone.
const EXPECTED_EXPORT = `PATH=/usr/local/bin:/usr/bin:/bin
HOME=/srv/app
*/5 * * * * /usr/local/bin/poll-queue --quiet
0 2 * * 1-5 /usr/local/bin/backup.sh --full >> /var/log/backup.log 2>&1
30 6 1,15 * * echo "report for $(date +\\%Y-\\%m-\\%d)" | mail -s report boss
15 10 * jan,jul mon-fri /opt/jobs/seasonal.sh
0-30/10 8-18 * * * /opt/jobs/sample.sh
@daily /usr/bin/find /tmp -mtime +7 -delete
@daily echo midnight
CRON_TZ=America/New_York
SHELL=/bin/bash
0 9 * * 1-5 /opt/jobs/market-open.sh
0 */2 * * * mail -s "ping" ops%hello there,%this is the body
CRON_TZ=Europe/Berlin
45 23 * * 7 /opt/jobs/weekly-close.sh
0 5 * * * root /usr/sbin/logrotate /etc/logrotate.conf
`;

// Every command here sees the same zone, so lines without CRON_TZ mean the same thing to all of them.
const env = { SCHED_TZ: 'UTC' };
let home: string;
let daemon: RunningDaemon;

beforeAll(async () => {
  home = makeHome('sched-ops-crontab-');
  daemon = await startDaemon(home, [], env);
});

afterAll(async () => {
  await daemon.stop();
  removeHome(home);
});

describe('sched import crontab, against a real daemon', () => {
  it('shows the plan and changes nothing without a terminal to confirm on', async () => {
    const result = await sched(home, ['import', 'crontab', fixture], { env });
    const jobs = await sched(home, ['ls', '--json'], { env });

    expect(result.code).toBe(2);
    expect(result.stdout).toContain('11 to create, 0 already there, 0 in conflict, 6 not imported.');
    expect(result.stdout).toMatch(
      /create\s+20\s+cron-mail-s-ping-[0-9a-f]{8}\s+0 \*\/2 \* \* \* \(America\/New_York\)/,
    );
    expect(result.stdout).toContain('line 14: @reboot /usr/local/bin/start-tunnel');
    expect(result.stderr).toContain('--yes');
    expect(jobs.json.items).toEqual([]);
  });

  it('creates the jobs with --yes and reports what it did with each line', async () => {
    const result = await sched(home, ['import', 'crontab', fixture, '--yes', '--json'], { env });

    expect(result.code).toBe(0);
    expect(result.json.applied).toBe(true);
    expect(result.json.jobs).toHaveLength(11);
    expect(result.json.jobs.every((job: { outcome: string }) => job.outcome === 'created')).toBe(true);
    expect(result.json.unsupported.map((note: { line: number }) => note.line)).toEqual([
      4, 14, 25, 26, 27, 29,
    ]);
    expect(result.json.warnings.map((note: { line: number }) => note.line)).toEqual([24]);
  });

  it('lists the imported jobs, labelled, in their zones', async () => {
    const result = await sched(home, ['ls', '--json', '--label', 'source=crontab'], { env });

    expect(result.json.items).toHaveLength(11);
    const market = result.json.items.find((job: { name: string }) =>
      job.name.startsWith('cron-market-open.sh-'),
    );
    expect(market).toMatchObject({
      schedule: { kind: 'cron', expression: '0 9 * * 1-5' },
      timezone: 'America/New_York',
      target: { kind: 'command', argv: ['/bin/bash', '-c', '/opt/jobs/market-open.sh'] },
      labels: { source: 'crontab' },
    });
  });

  // Variable lines become the jobs' environment, whose values are secret: in clear with --reveal only.
  it('exports them again as a crontab', async () => {
    const result = await sched(home, ['export', '--format', 'crontab', '--reveal'], { env });
    const masked = await sched(home, ['export', '--format', 'crontab'], { env });

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(EXPECTED_EXPORT);
    expect(masked.stdout).toBe(
      EXPECTED_EXPORT.replace('PATH=/usr/local/bin:/usr/bin:/bin\nHOME=/srv/app', 'PATH=•••\nHOME=•••'),
    );
  });

  it('adds nothing when the same crontab is imported again', async () => {
    const result = await sched(home, ['import', 'crontab', fixture, '--yes', '--json'], { env });
    const jobs = await sched(home, ['ls', '--json'], { env });

    expect(result.code).toBe(0);
    expect(result.json.jobs.map((job: { action: string }) => job.action)).toEqual(
      Array(11).fill('unchanged'),
    );
    expect(jobs.json.items).toHaveLength(11);
  });

  it('changes nothing with --dry-run', async () => {
    const result = await sched(home, ['import', 'crontab', '-', '--dry-run', '--json'], {
      env,
      input: '0 1 * * * /opt/new-job.sh\n',
    });
    const jobs = await sched(home, ['ls', '--json'], { env });

    expect(result.json).toMatchObject({ applied: false, jobs: [{ action: 'create', line: 1 }] });
    expect(jobs.json.items).toHaveLength(11);
  });

  it('gives the same jobs when its own export is imported into a fresh daemon', async () => {
    const otherHome = makeHome('sched-ops-crontab-b-');
    const other = await startDaemon(otherHome, [], env);
    try {
      const masked = (await sched(home, ['export', '--format', 'crontab'], { env })).stdout;
      const refused = await sched(otherHome, ['import', 'crontab', '-', '--yes'], { env, input: masked });
      const createdByRefused = (await sched(otherHome, ['ls', '--json'], { env })).json.items;
      const imported = await sched(otherHome, ['import', 'crontab', '-', '--yes'], {
        env,
        input: EXPECTED_EXPORT,
      });
      const exported = await sched(otherHome, ['export', '--format', 'crontab', '--reveal'], { env });
      const names = async (dir: string) =>
        (await sched(dir, ['ls', '--json'], { env })).json.items
          .map((job: { name: string }) => job.name)
          .sort();

      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('has masked secret values (env PATH, env HOME)');
      expect(createdByRefused).toEqual([]);
      expect(imported.code).toBe(0);
      expect(exported.stdout).toBe(EXPECTED_EXPORT);
      expect(await names(otherHome)).toEqual(await names(home));
    } finally {
      await other.stop();
      removeHome(otherHome);
    }
  });

  it('says why it cannot read a file', async () => {
    const result = await sched(home, ['import', 'crontab', `${fixture}.missing`], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ENOENT');
  });
});

describe('the fixture', () => {
  it('is varied: comments, blank lines, variables, zones, macros, steps, stdin, a user field, garbage', () => {
    const text = fs.readFileSync(fixture, 'utf8');
    for (const needle of [
      '#',
      '\n\n',
      'MAILTO=',
      'CRON_TZ=',
      'SHELL=',
      '@reboot',
      '@midnight',
      '*/5',
      '0-30/10',
      '%',
      ' root ',
      'garbage',
    ])
      expect(text).toContain(needle);
  });
});

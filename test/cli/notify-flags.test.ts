import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sched, useDaemons } from '../support/sched-harness.js';

describe('notify flags on add, update, export and import', () => {
  // Its own afterEach: kept in a list that each test's afterEach emptied, it ran after the first test only
  // and left the other tests' daemons running.
  const daemons = useDaemons(afterEach);

  it('Given a target sched cannot deliver to or an unknown event, when a job is added, then it is refused in one line with a hint and nothing is stored', async () => {
    const home = daemons.home();
    await daemons.start(home);

    const badTarget = await sched(home, [
      'add',
      'a',
      '--every',
      '1h',
      '--notify',
      'ftp://x.example/y',
      '--shell',
      'true',
    ]);
    const badEvent = await sched(home, [
      'add',
      'a',
      '--every',
      '1h',
      '--notify-on',
      'dead,sometimes',
      '--shell',
      'true',
    ]);
    const badSilence = await sched(home, [
      'add',
      'a',
      '--every',
      '1h',
      '--max-silence',
      '10ms',
      '--shell',
      'true',
    ]);

    for (const result of [badTarget, badEvent, badSilence]) {
      expect(result.code).toBe(2);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(badTarget.stderr).toContain('Cannot deliver notifications to "ftp://x.example/y"');
    expect(badEvent.stderr).toContain('"sometimes"');
    expect(badSilence.stderr).toContain('out of range');
    expect((await sched(home, ['ls', '--json'])).stdout).not.toContain('"name":"a"');
  });

  it('Given a job with targets, events and a switch, when it is exported, cancelled and imported, then they come back; update --clear-notify drops the targets', async () => {
    const home = daemons.home();
    await daemons.start(home);
    await sched(home, [
      'add',
      'nightly',
      '--every',
      '1h',
      '--shell',
      'true',
      '--notify',
      'https://hooks.example/a',
      '--notify',
      'mailto:ops@example.com',
      '--notify-on',
      'overdue,dead',
      '--max-silence',
      '26h',
    ]);
    const before = (await sched(home, ['show', 'nightly', '--json'])).json.job.alerts;
    expect(before).toEqual({
      notify: ['https://hooks.example/a', 'mailto:ops@example.com'],
      notifyOn: ['dead', 'overdue'],
      expectSuccessEveryMs: 26 * 3_600_000,
    });
    const exported = await sched(home, ['export', '--format', 'json']);
    const file = path.join(home, 'jobs.json');
    fs.writeFileSync(file, exported.stdout);
    expect((await sched(home, ['cancel', 'nightly'])).code).toBe(0);

    expect((await sched(home, ['import', 'json', file, '--yes'])).code).toBe(0);

    expect((await sched(home, ['show', 'nightly', '--json'])).json.job.alerts).toEqual(before);
    expect((await sched(home, ['update', 'nightly', '--clear-notify'])).code).toBe(0);
    expect((await sched(home, ['show', 'nightly', '--json'])).json.job.alerts.notify).toEqual([]);
  });

  it('Given an SMTP URL with a password, when the config is shown, then the password is not', async () => {
    const home = daemons.home();

    const shown = await sched(home, ['config', 'show', '--json'], {
      env: { SCHED_SMTP_URL: 'smtp://sched:hunter2-secret@mail.example.com:587' },
    });

    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toContain('hunter2-secret');
    expect(shown.json.settings['notify.smtp_url'].value).toBe('smtp://sched:***@mail.example.com:587');
  });
});

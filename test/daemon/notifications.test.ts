import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sched, sleep, useDaemons, waitFor } from '../support/sched-harness.js';
import { signedWith, startHookServer, startSmtpServer } from '../support/notify-receivers.js';

const SECRET = 'test-signing-secret-42';

describe('notifications from a real daemon to real local receivers', () => {
  const cleanups: (() => Promise<void>)[] = [];
  // Its own afterEach: kept in `cleanups`, which each test's afterEach empties, it ran after the first test
  // only and left the other tests' daemons running.
  const daemons = useDaemons(afterEach);
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function writeConfig(home: string, lines: string[]): void {
    fs.writeFileSync(path.join(home, 'webhook.secret'), `${SECRET}\n`, { mode: 0o600 });
    fs.writeFileSync(
      path.join(home, 'config.toml'),
      ['[notify]', `webhook_secret_file = "${path.join(home, 'webhook.secret')}"`, ...lines].join('\n'),
    );
  }

  it('Given a webhook that answers 500 and a daemon killed -9 with the delivery pending, when the daemon restarts and the hook recovers, then the dead run is delivered exactly once, signed', async () => {
    let accept = false;
    const hook = await startHookServer(() => (accept ? 200 : 500));
    cleanups.push(() => hook.close());
    const home = daemons.home();
    writeConfig(home, []);
    const first = await daemons.start(home);
    expect(
      (
        await sched(home, [
          'add',
          'breaks',
          '--every',
          '1h',
          '--shell',
          'exit 3',
          '--notify',
          `${hook.base}/hook`,
        ])
      ).code,
    ).toBe(0);

    expect((await sched(home, ['trigger', 'breaks'])).code).toBe(0);
    await waitFor(async () => hook.received.length >= 1, 30_000);
    process.kill(first.pid, 'SIGKILL');
    await first.exited;
    accept = true;
    const second = await daemons.start(home);

    // A kill between claiming the delivery and recording the 500 leaves it leased for 30s.
    await waitFor(async () => hook.received.some((request) => request.status === 200), 60_000);
    await sleep(3_000);
    const delivered = hook.received.filter((request) => request.status === 200);
    expect(delivered).toHaveLength(1);
    const body = JSON.parse(delivered[0]!.body);
    expect(body).toMatchObject({
      event: 'dead',
      job: { name: 'breaks' },
      run: { state: 'failed', exitCode: 3 },
    });
    expect(body.sentence).toContain('breaks failed for good');
    expect(signedWith(SECRET, delivered[0]!)).toBe(true);
    const listed = await sched(home, ['notifications', '--json']);
    expect(listed.json.items).toEqual([
      expect.objectContaining({ kind: 'dead', state: 'delivered', attempts: expect.any(Number) }),
    ]);
    // The kill may land before the 500 was recorded: then the row was still untried, and is sent once.
    expect(listed.json.items[0].attempts).toBeGreaterThanOrEqual(1);
    expect(hook.received.filter((request) => request.status === 500).length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(listed.json)).not.toContain(SECRET);
    expect(first.output() + second.output()).not.toContain(SECRET);
    expect(second.output()).toContain('"event":"notification:attempted"');
    expect(fs.readFileSync(path.join(home, 'sched.db')).includes(SECRET)).toBe(false);
  });

  it('Given Slack, webhook and e-mail targets, when sched notify test runs, then each answers and the Slack hook gets a readable text and the mail arrives by SMTP', async () => {
    const hook = await startHookServer();
    const smtp = await startSmtpServer();
    cleanups.push(
      () => hook.close(),
      () => smtp.close(),
    );
    const home = daemons.home();
    writeConfig(home, [`smtp_url = "${smtp.url}"`, 'from = "sched@test.example"']);
    await daemons.start(home);
    await sched(home, [
      'add',
      'nightly',
      '--every',
      '1h',
      '--shell',
      'true',
      '--notify',
      `slack+${hook.base}/slack`,
      '--notify',
      `${hook.base}/plain`,
      '--notify',
      'mailto:ops@test.example',
    ]);

    const result = await sched(home, ['notify', 'test', 'nightly', '--json']);

    expect(result.code).toBe(0);
    expect(result.json.targets).toHaveLength(3);
    expect(result.json.targets.every((target: { ok: boolean }) => target.ok)).toBe(true);
    const slack = hook.received.find((request) => request.path === '/slack')!;
    expect(JSON.parse(slack.body)).toEqual({
      text: expect.stringContaining('test notification for job nightly'),
    });
    expect(slack.headers['x-sched-signature']).toBeUndefined();
    const plain = hook.received.find((request) => request.path === '/plain')!;
    expect(signedWith(SECRET, plain)).toBe(true);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.to.join()).toContain('ops@test.example');
    expect(smtp.messages[0]!.data).toContain('nightly');
  });

  it('Given a flapping job that notifies on every failure, when it fails again and again, then some messages are held back and one summary says so', async () => {
    const hook = await startHookServer();
    cleanups.push(() => hook.close());
    const home = daemons.home();
    writeConfig(home, ['max_per_window = 2', 'window = "8s"']);
    await daemons.start(home);
    await sched(home, [
      'add',
      'flaps',
      '--every',
      '1h',
      '--shell',
      'exit 1',
      '--notify',
      `${hook.base}/h`,
      '--notify-on',
      'failure',
    ]);

    for (let i = 0; i < 6; i += 1) {
      await sched(home, ['trigger', 'flaps']);
      await sleep(200);
    }

    await waitFor(
      async () => hook.received.some((request) => JSON.parse(request.body).event === 'summary'),
      40_000,
    );
    const events = hook.received.map((request) => JSON.parse(request.body).event as string);
    expect(events.filter((event) => event === 'failure').length).toBeLessThan(6);
    const summary = JSON.parse(
      hook.received.find((request) => JSON.parse(request.body).event === 'summary')!.body,
    );
    expect(summary.sentence).toMatch(/held back/);
    const suppressed = await sched(home, ['notifications', '--json', '--job', 'flaps']);
    expect(suppressed.json.items.some((item: { state: string }) => item.state === 'suppressed')).toBe(true);
  });

  it('Given a paused job with --expect-success-every 3s, when it stays silent, then it turns overdue and notifies once (also across a restart); a ping clears it and sends recovered', async () => {
    const hook = await startHookServer();
    cleanups.push(() => hook.close());
    const home = daemons.home();
    writeConfig(home, []);
    const first = await daemons.start(home, ['--metrics', '127.0.0.1:0']);
    await sched(home, [
      'add',
      'heartbeat',
      '--every',
      '1h',
      '--shell',
      'true',
      '--expect-success-every',
      '3s',
      '--notify',
      `${hook.base}/h`,
      '--notify-on',
      'overdue,recovered',
    ]);
    await sched(home, ['pause', 'heartbeat']);
    const events = () => hook.received.map((request) => JSON.parse(request.body).event as string);

    await waitFor(async () => events().includes('overdue'), 30_000);
    const listed = await sched(home, ['ls', '--json']);
    expect(listed.json.items?.[0]?.overdueSince ?? listed.json[0]?.overdueSince).toEqual(expect.any(Number));
    const started = first
      .output()
      .split('\n')
      .find((line) => line.includes('"daemon:started"'))!;
    const metrics = await (await fetch(`http://${JSON.parse(started).metricsAddress}/metrics`)).text();
    expect(metrics).toContain('sched_job_overdue{job="heartbeat"} 1');
    process.kill(first.pid, 'SIGKILL');
    await first.exited;
    await daemons.start(home);
    await sleep(4_000);
    expect(events().filter((event) => event === 'overdue')).toHaveLength(1);

    expect((await sched(home, ['ping', 'heartbeat'])).code).toBe(0);

    await waitFor(async () => events().includes('recovered'), 30_000);
    expect(events().filter((event) => event === 'overdue')).toHaveLength(1);
    const shown = await sched(home, ['show', 'heartbeat', '--json']);
    expect(shown.json.overdueSince).toBeNull();
    const why = await sched(home, ['history', 'heartbeat', '--json']);
    expect(JSON.stringify(why.json)).toContain('ping');
  });
});

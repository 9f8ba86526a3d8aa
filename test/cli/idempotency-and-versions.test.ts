import { afterEach, describe, expect, it } from 'vitest';
import { sched, useDaemons } from '../support/sched-harness.js';

describe('idempotent requests, versions and the audit log', () => {
  const { home, start: startIn, startComposed } = useDaemons(afterEach);
  const start = (dir: string, env: Record<string, string> = {}) => startIn(dir, [], env);
  const jobNames = async (dir: string) =>
    (await sched(dir, ['ls', '--json'])).json.items.map((job: { name: string }) => job.name);

  it('answers a repeated add with the same key with the first job and creates nothing new, also after a restart', async () => {
    const dir = home();
    const daemon = await start(dir);
    const args = ['add', 'once-only', '--every', '1h', '--idempotency-key', 'k-1', '--json', '--', 'true'];
    const first = await sched(dir, args);
    const second = await sched(dir, args);
    expect(second.code).toBe(0);
    expect(second.json.id).toBe(first.json.id);

    await daemon.stop('SIGTERM');
    await start(dir);
    const third = await sched(dir, args);
    expect(third.json.id).toBe(first.json.id);
    expect(await jobNames(dir)).toEqual(['once-only']);
  });

  it('refuses a different request under a used key with IDEMPOTENCY_MISMATCH and changes nothing', async () => {
    const dir = home();
    await start(dir);
    await sched(dir, ['add', 'a', '--every', '1h', '--idempotency-key', 'k-2', '--', 'true']);
    const other = await sched(dir, [
      'add',
      'b',
      '--every',
      '1h',
      '--idempotency-key',
      'k-2',
      '--json',
      '--',
      'true',
    ]);
    expect(other.code).toBe(4);
    expect(other.json.error.code).toBe('IDEMPOTENCY_MISMATCH');
    expect(await jobNames(dir)).toEqual(['a']);
  });

  it('creates one job when an idempotent add is repeated after the daemon died before replying', async () => {
    const dir = home();
    const doomed = await startComposed(dir, 'crash-before-reply-daemon.mjs', ['job.add']);
    const args = ['add', 'lost-reply', '--every', '1h', '--idempotency-key', 'k-3', '--json', '--', 'true'];
    const first = await sched(dir, args);
    expect(first.code).toBe(7);
    await doomed.exited;

    await start(dir);
    const again = await sched(dir, args);
    expect(again.code).toBe(0);
    expect(again.json.name).toBe('lost-reply');
    expect(await jobNames(dir)).toEqual(['lost-reply']);
  });

  it('answers a repeated trigger with the same key with the first run', async () => {
    const dir = home();
    await start(dir);
    await sched(dir, ['add', 'manual', '--every', '1h', '--', 'true']);
    const first = await sched(dir, ['trigger', 'manual', '--idempotency-key', 't-1', '--json']);
    const second = await sched(dir, ['trigger', 'manual', '--idempotency-key', 't-1', '--json']);
    expect(second.json.id).toBe(first.json.id);
    expect((await sched(dir, ['history', 'manual', '--json'])).json.items).toHaveLength(1);
  });

  it('changes nothing on a stale --if-version and says VERSION_CONFLICT', async () => {
    const dir = home();
    await start(dir);
    await sched(dir, ['add', 'versioned', '--cron', '0 3 * * *', '--', 'true']);
    expect((await sched(dir, ['update', 'versioned', '--cron', '0 4 * * *', '--if-version', '1'])).code).toBe(
      0,
    );

    const stale = await sched(dir, [
      'update',
      'versioned',
      '--cron',
      '0 5 * * *',
      '--if-version',
      '1',
      '--json',
    ]);

    expect(stale.code).toBe(4);
    expect(stale.json.error.code).toBe('VERSION_CONFLICT');
    const job = (await sched(dir, ['show', 'versioned', '--json'])).json.job;
    expect(job).toMatchObject({ version: 2, schedule: { expression: '0 4 * * *' } });
  });

  it('audits every change with the unix user and before/after images', async () => {
    const dir = home();
    await start(dir);
    await sched(dir, ['add', 'audited', '--cron', '0 3 * * *', '--', 'true']);
    await sched(dir, ['update', 'audited', '--cron', '0 4 * * *']);
    await sched(dir, ['pause', 'audited']);
    await sched(dir, ['resume', 'audited']);
    await sched(dir, ['cancel', 'audited']);

    const audit = (await sched(dir, ['audit', 'audited', '--json'])).json.items;

    expect(audit.map((entry: { action: string }) => entry.action)).toEqual([
      'job.cancel',
      'job.resume',
      'job.pause',
      'job.update',
      'job.create',
    ]);
    const update = audit.find((entry: { action: string }) => entry.action === 'job.update');
    expect(update.before.schedule.expression).toBe('0 3 * * *');
    expect(update.after.schedule.expression).toBe('0 4 * * *');
    const me = (await import('node:os')).userInfo();
    // The caller as the kernel named it on the socket: the user, their uid and the pid of `sched update`.
    expect(update.actor).toMatch(new RegExp(`^${me.username} \\(uid ${me.uid}, pid \\d+\\)$`));
    const human = await sched(dir, ['audit', 'audited']);
    expect(human.stdout).toMatch(/job\.update/);
  });
});

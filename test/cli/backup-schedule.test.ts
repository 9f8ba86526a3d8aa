import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { backupFileName } from '../../src/core/backup/backup-names.js';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';

const cleanups: Array<() => Promise<void>> = [];
const daemons = useDaemons((cleanup) => cleanups.push(cleanup));
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

type Check = { name: string; status: string; message: string; fix: string | null };
async function backupCheck(home: string, env: Record<string, string>): Promise<Check | undefined> {
  const result = await sched(home, ['doctor', '--json'], { env });
  return (result.json.checks as Check[]).find((check) => check.name === 'backup');
}

describe('[backup] settings, through the real CLI and daemon', () => {
  it('Given dir and every, when the daemon runs, then it writes a backup there and doctor reports its age', async () => {
    const home = daemons.home();
    const dir = path.join(daemons.home(), 'backups');
    const env = { SCHED_BACKUP_DIR: dir, SCHED_BACKUP_EVERY: '1h', SCHED_BACKUP_KEEP: '2' };
    await daemons.start(home, [], env);

    // Its temporary file (a dot file) comes first; the backup is the name it is moved to.
    const written = () =>
      (fs.existsSync(dir) ? fs.readdirSync(dir) : []).filter((name) => !name.startsWith('.'));
    const [name] = await waitFor(async () => written().length > 0 && written(), 30_000);

    expect(name).toMatch(/^sched-\d{8}T\d{6}\.\d{3}Z\.db$/);
    expect(fs.statSync(path.join(dir, name!)).mode & 0o777).toBe(0o600);
    const check = await backupCheck(home, env);
    expect(check).toMatchObject({ status: 'ok', fix: null });
    expect(check?.message).toMatch(
      /^the newest backup, .*sched-\d{8}T\d{6}\.\d{3}Z\.db, is \d+(ms|s) old \(every 1h, keeping 2\)$/,
    );
  });

  it('Given the newest backup is older than twice every, then doctor warns', async () => {
    const home = daemons.home();
    const dir = daemons.home();
    fs.writeFileSync(path.join(dir, backupFileName(Date.now() - 3 * HOUR)), '');
    fs.writeFileSync(path.join(dir, backupFileName(Date.now() - 5 * HOUR)), '');

    const check = await backupCheck(home, { SCHED_BACKUP_DIR: dir, SCHED_BACKUP_EVERY: '1h' });

    expect(check?.status).toBe('warn');
    expect(check?.message).toMatch(/is 3h(\d+s)? old: more than twice every 1h$/);
    expect(check?.fix).toContain('backup:failed');
  });

  it('Given a recent backup, then doctor reports its age', async () => {
    const home = daemons.home();
    const dir = daemons.home();
    fs.writeFileSync(path.join(dir, backupFileName(Date.now() - 20 * MINUTE)), '');

    const check = await backupCheck(home, { SCHED_BACKUP_DIR: dir, SCHED_BACKUP_EVERY: '1h' });

    expect(check?.status).toBe('ok');
    expect(check?.message).toMatch(/is 20m(\d+s)? old \(every 1h, keeping 7\)$/);
  });

  it('Given no backup yet, then doctor warns; without dir and every it says nothing of backups', async () => {
    const home = daemons.home();
    const dir = daemons.home();

    expect(await backupCheck(home, { SCHED_BACKUP_DIR: dir, SCHED_BACKUP_EVERY: '6h' })).toMatchObject({
      status: 'warn',
      message: `no backup in ${dir} yet (every 6h)`,
    });
    expect(await backupCheck(home, { SCHED_BACKUP_DIR: dir })).toBeUndefined();
  });

  it('Given every shorter than a minute, then the setting is refused with what it must be', async () => {
    const home = daemons.home();

    const result = await sched(home, ['config', 'show', '--json'], { env: { SCHED_BACKUP_EVERY: '5s' } });

    expect(result.code).toBe(2);
    expect(result.json.error.message).toBe(
      'SCHED_BACKUP_EVERY must be a duration of at least 1m such as "6h" or "1d", or "off" (got "5s").',
    );
  });
});

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { backupFileName } from '../../src/core/backup/backup-names.js';
import { FAKE_EPOCH, FakeClock } from '../support/fake-clock.js';
import { useVirtualDaemons, type VirtualDaemon } from '../support/virtual-daemon.js';

const HOUR = 3_600_000;
const cleanups: Array<() => Promise<void>> = [];
const daemons = useVirtualDaemons((cleanup) => cleanups.push(cleanup));
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** Moves virtual time on by `ms` and waits (in real time, bounded) for the backup it makes to be written. */
async function advanceToBackup(daemon: VirtualDaemon, ms: number): Promise<string> {
  const written = daemon.next('backup:written');
  await daemon.clock.advance(ms);
  const [backup] = await written;
  return backup.file;
}

describe('scheduled backups ([backup] dir, every, keep), in virtual time', () => {
  it('Given every 1h and keep 3, when five hours pass, then the newest three remain, named for their time, each holding the jobs', async () => {
    const home = daemons.home();
    const dir = path.join(home, 'backups');
    const daemon = await daemons.start(new FakeClock(), home, {
      backup: { dir, everyMs: HOUR, keep: 3 },
    });
    await daemon.add({ name: 'nightly', cron: '0 3 * * *', shell: 'true' });

    // None in the folder yet: the first is due at once.
    await advanceToBackup(daemon, 0);
    for (let hour = 1; hour <= 5; hour += 1) await advanceToBackup(daemon, HOUR);

    expect(fs.readdirSync(dir).sort()).toEqual(
      [3, 4, 5].map((hours) => backupFileName(FAKE_EPOCH + hours * HOUR)),
    );
    for (const name of fs.readdirSync(dir)) {
      const copy = new Database(path.join(dir, name), { readonly: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(copy.prepare('SELECT name FROM jobs').all()).toEqual([{ name: 'nightly' }]);
      } finally {
        copy.close();
      }
      expect(fs.statSync(path.join(dir, name)).mode & 0o777).toBe(0o600);
    }
  });

  it('Given a backup 30 minutes old when the daemon starts, then the next is taken 30 minutes later, not at once', async () => {
    const home = daemons.home();
    const dir = path.join(home, 'backups');
    const clock = new FakeClock();
    const first = await daemons.start(clock, home, { backup: { dir, everyMs: HOUR, keep: 3 } });
    await advanceToBackup(first, 0);
    await first.stop();
    await clock.advance(30 * 60_000);

    const second = await daemons.start(clock, home, { backup: { dir, everyMs: HOUR, keep: 3 } });
    await clock.advance(29 * 60_000);
    expect(fs.readdirSync(dir)).toEqual([backupFileName(FAKE_EPOCH)]);
    const next = await advanceToBackup(second, 60_000);

    expect(path.basename(next)).toBe(backupFileName(FAKE_EPOCH + HOUR));
    expect(fs.readdirSync(dir).sort()).toEqual([
      backupFileName(FAKE_EPOCH),
      backupFileName(FAKE_EPOCH + HOUR),
    ]);
  });
});

import fs from 'node:fs';
import Database from 'better-sqlite3';
import { SchedError } from '../core/errors.js';

export interface InstanceLock {
  release(): void;
}

/**
 * One daemon per home. The lock is an exclusive SQLite lock (a POSIX record lock underneath), so the
 * kernel drops it when the holder dies, even by `kill -9`: no stale pid files to clean up.
 */
export function acquireInstanceLock(lockPath: string): InstanceLock {
  const pidPath = `${lockPath}.pid`;
  const db = new Database(lockPath, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch {
    db.close();
    const holder = readPid(pidPath);
    throw new SchedError(
      'DAEMON_ALREADY_RUNNING',
      `Another sched daemon${holder ? ` (pid ${holder})` : ''} is already running for ${lockPath.replace(/\/[^/]+$/, '')}.`,
      {
        hint: 'Use that daemon, stop it first, or give this one its own SCHED_HOME.',
        details: { lockPath, pid: holder },
      },
    );
  }
  fs.writeFileSync(pidPath, `${process.pid}\n`, { mode: 0o600 });
  return {
    release: () => {
      fs.rmSync(pidPath, { force: true });
      db.close();
    },
  };
}

function readPid(pidPath: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(pidPath, 'utf8'), 10);
    return Number.isFinite(pid) ? pid : null;
  } catch {
    return null;
  }
}

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SchedError } from '../core/errors.js';
import { resolveDatabasePath } from '../store/sqlite/database-path.js';
import { createPrivateFile } from './private-file.js';
import type { Service } from './service.js';

export interface InstanceLock {
  release(): void;
}

/** One daemon per home: the socket and the files in the home are one daemon's. */
export function acquireInstanceLock(lockPath: string): InstanceLock {
  const home = path.dirname(lockPath);
  const attempt = lockExclusively(lockPath, `the home ${home}`);
  if ('lock' in attempt) return attempt.lock;
  throw new SchedError(
    'DAEMON_ALREADY_RUNNING',
    `Another sched daemon${describePid(attempt.holder)} is already running for ${home}.`,
    {
      hint: 'Use that daemon, stop it first, or give this one its own SCHED_HOME.',
      details: { lockPath, pid: attempt.holder },
    },
  );
}

/**
 * One daemon per SQLite database, wherever its home is: a second one would record the first one's live
 * runs lost and retry them. The lock sits beside the database's resolved path, so two spellings of one
 * file (a symlink, `..`) meet at one lock.
 */
export function acquireDatabaseLock(databasePath: string): InstanceLock {
  const database = resolveDatabasePath(databasePath);
  const lockPath = `${database}.lock`;
  const attempt = lockExclusively(lockPath, `the SQLite database ${database}`);
  if ('lock' in attempt) return attempt.lock;
  throw new SchedError(
    'DAEMON_ALREADY_RUNNING',
    `Another sched daemon${describePid(attempt.holder)} is already using the database ${database}.`,
    {
      hint: 'Use that daemon (its SCHED_HOME), stop it first, or give this one its own database with --store sqlite:PATH.',
      details: { databasePath: database, lockPath, pid: attempt.holder },
    },
  );
}

/**
 * An exclusive SQLite lock (a POSIX record lock underneath), so the kernel drops it when the holder
 * dies, even by `kill -9`: no stale pid files to clean up. The pid beside it only names the holder.
 */
function lockExclusively(lockPath: string, what: string): { lock: InstanceLock } | { holder: number | null } {
  const pidPath = `${lockPath}.pid`;
  let db: Database.Database;
  try {
    createPrivateFile(lockPath);
    db = new Database(lockPath, { timeout: 0 });
  } catch (error) {
    throw new SchedError(
      'STORE_UNAVAILABLE',
      `Cannot lock ${what}: ${(error as Error).message} (${lockPath}).`,
      {
        hint: 'Check that its folder exists and that this user may write to it.',
        details: { lockPath },
      },
    );
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch {
    db.close();
    return { holder: readPid(pidPath) };
  }
  fs.writeFileSync(pidPath, `${process.pid}\n`, { mode: 0o600 });
  return {
    lock: {
      release: () => {
        fs.rmSync(pidPath, { force: true });
        db.close();
      },
    },
  };
}

function describePid(pid: number | null): string {
  return pid === null ? '' : ` (pid ${pid})`;
}

function readPid(pidPath: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(pidPath, 'utf8'), 10);
    return Number.isFinite(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** A lock held for as long as the daemon runs, as one of its services. */
export class HeldLock implements Service {
  private lock: InstanceLock | null = null;

  constructor(
    readonly name: string,
    private readonly acquire: () => InstanceLock,
  ) {}

  async start(): Promise<void> {
    this.lock = this.acquire();
  }

  async stop(): Promise<void> {
    this.lock?.release();
  }
}

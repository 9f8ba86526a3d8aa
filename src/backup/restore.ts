import fs from 'node:fs';
import path from 'node:path';
import { isSchedError, SchedError } from '../core/errors.js';
import {
  acquireDatabaseLock,
  acquireInstanceLock,
  type InstanceLock,
} from '../daemon/single-instance-lock.js';
import { MIGRATIONS_FOLDER } from '../store/sqlite/connection.js';
import { backupDatabase, temporaryBeside } from '../store/sqlite/online-backup.js';
import { isFromNewerRelease } from '../store/sqlite/migration-state.js';

export interface RestoreResult {
  /** The backup that was put in place, as an absolute path. */
  restored: string;
  database: string;
  /** Where the database it replaced was kept; null when there was none. */
  replacedKeptAs: string | null;
  /** Jobs (not cancelled) in the restored database. */
  jobs: number;
}

/**
 * `sched restore FILE`: with no daemon on this home or database (their locks are held throughout, so
 * none can start meanwhile), checks that FILE is a sound sched database, keeps the current database
 * aside as `<db>.replaced-<time>` and puts a copy of FILE (mode 0600) in its place. Nothing is changed
 * when a check fails.
 */
export async function restoreDatabase(options: {
  file: string;
  database: string;
  homeLockPath: string;
  now: Date;
}): Promise<RestoreResult> {
  const source = path.resolve(options.file);
  const database = path.resolve(options.database);
  const locks = lockOutDaemons(options.homeLockPath, database);
  try {
    const { default: Database } = await import('better-sqlite3');
    const backup = openBackup(Database, source);
    let staged: string | null = null;
    try {
      const jobs = checkSchedDatabase(backup, source);
      staged = (await backupDatabase(backup, temporaryBeside(database), { force: false })).file;
      backup.close();
      const replacedKeptAs = setAside(Database, database, options.now);
      fs.renameSync(staged, database);
      staged = null;
      return { restored: source, database, replacedKeptAs, jobs };
    } finally {
      if (backup.open) backup.close();
      if (staged !== null) fs.rmSync(staged, { force: true });
    }
  } finally {
    for (const lock of locks.reverse()) lock.release();
  }
}

function lockOutDaemons(homeLockPath: string, database: string): InstanceLock[] {
  const locks: InstanceLock[] = [];
  try {
    fs.mkdirSync(path.dirname(homeLockPath), { recursive: true, mode: 0o700 });
    locks.push(acquireInstanceLock(homeLockPath));
    locks.push(acquireDatabaseLock(database));
    return locks;
  } catch (error) {
    for (const lock of locks) lock.release();
    if (!isSchedError(error) || error.code !== 'DAEMON_ALREADY_RUNNING') throw error;
    const pid = error.details.pid;
    throw new SchedError(
      'DAEMON_ALREADY_RUNNING',
      `A sched daemon${typeof pid === 'number' ? ` (pid ${pid})` : ''} is running on ${database}; restoring under it would lose what it writes.`,
      {
        hint: 'Stop it first (`sched daemon stop`, or `systemctl --user stop sched`), restore, then start it again.',
        details: { ...error.details, database },
      },
    );
  }
}

type DatabaseConstructor = typeof import('better-sqlite3');

function openBackup(Database: DatabaseConstructor, file: string): import('better-sqlite3').Database {
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
    throw new SchedError('VALIDATION_FAILED', `There is no file ${file} to restore.`, {
      hint: 'Give the path of a copy written by `sched backup` or by the daemon (`[backup] dir`).',
      details: { file },
    });
  }
  try {
    return new Database(file, { readonly: true, fileMustExist: true, timeout: 2_000 });
  } catch (error) {
    throw notASchedDatabase(file, (error as Error).message);
  }
}

/** Throws unless `file` passes SQLite's integrity_check and has sched's tables; returns its job count. */
function checkSchedDatabase(backup: import('better-sqlite3').Database, file: string): number {
  try {
    return countJobsIfSound(backup, file);
  } catch (error) {
    // SQLite's own refusals (not a database, malformed pages) say what is wrong with the file.
    if (isSchedError(error)) throw error;
    throw notASchedDatabase(file, (error as Error).message);
  }
}

function countJobsIfSound(backup: import('better-sqlite3').Database, file: string): number {
  const problems = (backup.pragma('integrity_check') as Array<{ integrity_check: string }>).map(
    (row) => row.integrity_check,
  );
  if (problems.length !== 1 || problems[0] !== 'ok') {
    throw new SchedError(
      'VALIDATION_FAILED',
      `${file} fails SQLite's integrity_check: ${problems.slice(0, 3).join('; ')}.`,
      { hint: 'It is damaged; restore an older backup.', details: { file, problems: problems.slice(0, 20) } },
    );
  }
  const tables = new Set(
    (
      backup.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
    ).map((row) => row.name),
  );
  const missing = ['jobs', 'runs', '__drizzle_migrations'].filter((table) => !tables.has(table));
  if (missing.length > 0) throw notASchedDatabase(file, `it has no ${missing.join(', ')} table`);
  if (isFromNewerRelease(backup, MIGRATIONS_FOLDER)) {
    throw new SchedError(
      'VALIDATION_FAILED',
      `${file} was written by a newer release of sched: it has database migrations this one does not know.`,
      { hint: 'Install that release (or a later one) to restore it.', details: { file } },
    );
  }
  const { count } = backup.prepare("SELECT count(*) AS count FROM jobs WHERE state <> 'cancelled'").get() as {
    count: number;
  };
  return count;
}

function notASchedDatabase(file: string, reason: string): SchedError {
  return new SchedError('VALIDATION_FAILED', `${file} is not a sched database: ${reason}.`, {
    hint: 'Give the path of a copy written by `sched backup` or by the daemon (`[backup] dir`).',
    details: { file, reason },
  });
}

/**
 * Moves the current database, with its -wal and -shm files, to `<db>.replaced-<time>`: they keep their
 * pairing by name, so the copy opens as the database was, committed pages in its WAL included.
 */
function setAside(Database: DatabaseConstructor, database: string, now: Date): string | null {
  if (!fs.existsSync(database)) return null;
  try {
    // Folds the WAL into the file, so the copy set aside stands alone when it can.
    const current = new Database(database, { fileMustExist: true, timeout: 2_000 });
    try {
      current.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      current.close();
    }
  } catch {
    // A damaged database is set aside as it is: that may be why it is being replaced.
  }
  const keptAs = `${database}.replaced-${now.toISOString().replace(/[-:]/g, '')}`;
  for (const suffix of ['-wal', '-shm']) {
    if (fs.existsSync(`${database}${suffix}`)) fs.renameSync(`${database}${suffix}`, `${keptAs}${suffix}`);
  }
  fs.renameSync(database, keptAs);
  return keptAs;
}

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SchedError } from '../../core/errors.js';
import { resolveDatabasePath } from './database-path.js';

/**
 * Copies the database behind `source` into `file` with SQLite's online backup API, which copies a
 * consistent state while others keep writing. The copy is written beside `file` under a temporary name
 * and moved into place only once complete, so `file` is never a half-written database; it has mode 0600.
 * An existing `file` is refused unless `force`.
 */
export async function backupDatabase(
  source: Database.Database,
  file: string,
  options: { force: boolean },
): Promise<{ file: string; bytes: number }> {
  const target = path.resolve(file);
  refuseOwnFiles(source, target);
  refuseExisting(target, options.force);
  const temporary = temporaryBeside(target);
  try {
    createEmptyPrivateFile(temporary, target);
    await source.backup(temporary);
    standAlone(temporary);
    syncFile(temporary);
    moveIntoPlace(temporary, target, options.force);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  return { file: target, bytes: fs.statSync(target).size };
}

/**
 * The same copy made synchronously with `VACUUM INTO` (one read transaction), for where no await is
 * possible: opening a database before a migration changes it.
 */
export function vacuumInto(source: Database.Database, file: string): void {
  const temporary = temporaryBeside(file);
  try {
    createEmptyPrivateFile(temporary, file);
    source.prepare('VACUUM INTO ?').run(temporary);
    standAlone(temporary);
    syncFile(temporary);
    moveIntoPlace(temporary, file, false);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/** A name beside `file` that no other copy in flight uses. */
export function temporaryBeside(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Creates `file` empty with exactly mode 0600, whatever the umask: a copy of the jobs is as private as
 * they are. A failure is told about `meant`, the file the user named.
 */
export function createEmptyPrivateFile(file: string, meant: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (error) {
    throw cannotWrite(meant, error as NodeJS.ErrnoException);
  }
  try {
    fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A copy of a WAL database is in WAL mode too, so opening it would leave -wal and -shm files beside it;
 * in rollback mode it is one file that opens anywhere, even read-only. The daemon turns WAL back on.
 */
export function standAlone(file: string): void {
  const copy = new Database(file, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

/** Even with --force: replacing the database (or its journal) under the daemon would break it. */
function refuseOwnFiles(source: Database.Database, target: string): void {
  const database = resolveDatabasePath(source.name);
  const named = resolveDatabasePath(target);
  if (![database, `${database}-wal`, `${database}-shm`, `${database}-journal`].includes(named)) return;
  throw new SchedError(
    'VALIDATION_FAILED',
    `${target} is the daemon's own database; a backup cannot replace it.`,
    {
      hint: 'Write the copy to another file, preferably on another disk.',
      details: { file: target },
    },
  );
}

function refuseExisting(file: string, force: boolean): void {
  if (force || !fs.existsSync(file)) return;
  throw new SchedError('VALIDATION_FAILED', `${file} already exists.`, {
    hint: 'Choose another file name, or add --force to replace it.',
    details: { file },
  });
}

function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Without `force` a link, which fails if `file` appeared meanwhile, rather than a rename, which would replace it. */
function moveIntoPlace(temporary: string, file: string, force: boolean): void {
  if (force) {
    fs.renameSync(temporary, file);
    return;
  }
  try {
    fs.linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') refuseExisting(file, false);
    throw cannotWrite(file, error as NodeJS.ErrnoException);
  }
}

function cannotWrite(file: string, error: NodeJS.ErrnoException): SchedError {
  const folder = path.dirname(file);
  const reason =
    error.code === 'ENOENT'
      ? `the folder ${folder} does not exist`
      : error.code === 'EACCES' || error.code === 'EPERM'
        ? `${folder} is not writable by the daemon's user`
        : error.message;
  return new SchedError('VALIDATION_FAILED', `Cannot write ${file}: ${reason}.`, {
    hint: 'Give a path in an existing folder that the daemon may write to.',
    details: { file, reason: error.code ?? error.message },
  });
}

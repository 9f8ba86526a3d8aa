import fs from 'node:fs';

/**
 * Creates `filePath` empty with mode 0600 unless it exists; an existing file keeps the mode it has. The
 * daemon leaves the process umask as it was started with, so its jobs get that umask (as under cron and
 * systemd); its own private files get their mode here instead. Call it before a library (SQLite) creates
 * the file with its default 0644: SQLite gives the -wal and -shm files the database file's mode.
 */
export function createPrivateFile(filePath: string): void {
  let fd: number;
  try {
    fd = fs.openSync(filePath, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    // Exactly 0600 whatever the umask takes away from the mode asked for at creation.
    fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Binds the socket under a umask that leaves others no rights, so nobody can connect in the moment
 * before its chmod, then gives the process its umask back. Only while nothing can start a job: the
 * socket takes no requests yet and the schedulers start after it, so no job inherits this umask.
 */
export async function bindPrivately<T>(bind: () => Promise<T>): Promise<T> {
  const startedWith = process.umask(0o177);
  try {
    return await bind();
  } finally {
    process.umask(startedWith);
  }
}

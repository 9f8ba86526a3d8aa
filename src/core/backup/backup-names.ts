/**
 * Scheduled backups are named for the instant they were taken, in UTC, so their names sort by age and
 * say it without reading the files: `sched-20261202T063000.123Z.db`.
 */
const NAME = /^sched-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})\.(\d{3})Z\.db$/;

export function backupFileName(takenAt: number): string {
  // 2026-12-02T06:30:00.123Z without its dashes and colons, which some file systems and tools dislike.
  return `sched-${new Date(takenAt).toISOString().replace(/[-:]/g, '')}.db`;
}

/** When the backup of this name was taken; null for a file that is not a scheduled backup. */
export function backupTakenAt(name: string): number | null {
  const match = NAME.exec(name);
  if (match === null) return null;
  const [, year, month, day, hour, minute, second, ms] = match.map(Number) as number[];
  return Date.UTC(year!, month! - 1, day!, hour!, minute!, second!, ms!);
}

/** Of the names in a backups folder, the scheduled backups beyond the newest `keep`: the ones to delete. */
export function backupsBeyond(names: readonly string[], keep: number): string[] {
  const backups = names
    .map((name) => ({ name, at: backupTakenAt(name) }))
    .filter((backup): backup is { name: string; at: number } => backup.at !== null)
    .sort((a, b) => b.at - a.at);
  return backups.slice(keep).map((backup) => backup.name);
}

/** The instant the newest scheduled backup among `names` was taken, or null when there is none. */
export function newestBackupAt(names: readonly string[]): number | null {
  let newest: number | null = null;
  for (const name of names) {
    const at = backupTakenAt(name);
    if (at !== null && (newest === null || at > newest)) newest = at;
  }
  return newest;
}

/**
 * When the next scheduled backup is due: `every` after the newest one, or now when there is none, or
 * when the newest is overdue or lies ahead of the clock (it stepped back): a backup too many beats a gap.
 */
export function nextBackupAt(newest: number | null, everyMs: number, now: number): number {
  if (newest === null || newest > now) return now;
  return Math.max(now, newest + everyMs);
}

/** A backup older than twice its interval means scheduled backups have stopped being taken. */
export function isBackupStale(newest: number, everyMs: number, now: number): boolean {
  return now - newest > 2 * everyMs;
}

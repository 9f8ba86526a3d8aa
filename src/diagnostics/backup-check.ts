import fs from 'node:fs';
import path from 'node:path';
import { backupFileName, isBackupStale, newestBackupAt } from '../core/backup/backup-names.js';
import { formatDuration } from '../core/duration.js';
import type { ResolvedConfig } from '../config/resolve.js';
import { pass, warning, type Check } from './check.js';

const FIX =
  'The daemon takes them on the [backup] schedule: check that it runs, that its log has no backup:failed, and that it may write to the folder.';

/** The age of the newest scheduled backup, when `[backup] dir` and `every` are set; null otherwise. */
export function backupCheck(backup: ResolvedConfig['backup'], now: number): Check | null {
  if (backup.dir === null || backup.everyMs === null) return null;
  const every = formatDuration(backup.everyMs);
  let names: string[];
  try {
    names = fs.readdirSync(backup.dir);
  } catch {
    names = [];
  }
  const newest = newestBackupAt(names);
  if (newest === null) return warning('backup', `no backup in ${backup.dir} yet (every ${every})`, FIX);
  const age = formatDuration(Math.max(0, now - newest));
  const where = path.join(backup.dir, backupFileName(newest));
  if (isBackupStale(newest, backup.everyMs, now))
    return warning(
      'backup',
      `the newest backup, ${where}, is ${age} old: more than twice every ${every}`,
      FIX,
    );
  return pass(
    'backup',
    `the newest backup, ${where}, is ${age} old (every ${every}, keeping ${backup.keep})`,
  );
}

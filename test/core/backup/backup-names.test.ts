import { describe, expect, it } from 'vitest';
import {
  backupFileName,
  backupsBeyond,
  backupTakenAt,
  isBackupStale,
  newestBackupAt,
  nextBackupAt,
} from '../../../src/core/backup/backup-names.js';

const AT = Date.UTC(2026, 11, 2, 6, 30, 0, 123);
const HOUR = 3_600_000;

describe('scheduled backup names', () => {
  it('name a backup for its UTC instant, and read the instant back', () => {
    expect(backupFileName(AT)).toBe('sched-20261202T063000.123Z.db');
    expect(backupTakenAt(backupFileName(AT))).toBe(AT);
  });

  it('do not take other files in the folder for backups', () => {
    expect(backupTakenAt('notes.txt')).toBeNull();
    expect(backupTakenAt('sched-20261202T063000.123Z.db.tmp')).toBeNull();
  });

  it('given more backups than to keep, name the oldest ones beyond the newest N', () => {
    const names = [0, 3, 1, 2].map((hours) => backupFileName(AT + hours * HOUR));
    expect(backupsBeyond([...names, 'notes.txt'], 2)).toEqual([
      backupFileName(AT + HOUR),
      backupFileName(AT),
    ]);
    expect(newestBackupAt(names)).toBe(AT + 3 * HOUR);
    expect(newestBackupAt(['notes.txt'])).toBeNull();
  });

  it('are due an interval after the newest, at once when there is none or it is overdue', () => {
    expect(nextBackupAt(null, HOUR, AT)).toBe(AT);
    expect(nextBackupAt(AT - 10 * 60_000, HOUR, AT)).toBe(AT + 50 * 60_000);
    expect(nextBackupAt(AT - 2 * HOUR, HOUR, AT)).toBe(AT);
    // The clock stepped back past the newest backup: one now rather than a long gap.
    expect(nextBackupAt(AT + HOUR, HOUR, AT)).toBe(AT);
  });

  it('count as stale past twice the interval', () => {
    expect(isBackupStale(AT - 2 * HOUR, HOUR, AT)).toBe(false);
    expect(isBackupStale(AT - 2 * HOUR - 1, HOUR, AT)).toBe(true);
  });
});

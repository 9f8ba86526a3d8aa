import fs from 'node:fs';
import { SchedError } from '../../core/errors.js';
import path from 'node:path';
import {
  backupFileName,
  backupsBeyond,
  newestBackupAt,
  nextBackupAt,
} from '../../core/backup/backup-names.js';
import type { Store } from '../../store/store.js';
import { wallTimer, type CancelTimer, type Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';
import type { Service } from '../service.js';

export interface BackupSchedule {
  /** The folder the backups go to; created (mode 0700) when missing. */
  dir: string;
  everyMs: number;
  /** How many of the newest backups to keep; older ones are deleted after each new one. */
  keep: number;
}

/**
 * The `[backup]` schedule: a copy of the store every `everyMs` into `dir`, named for its time, keeping
 * the newest `keep`. The first is due `everyMs` after the newest already in the folder, so restarting
 * the daemon neither skips one nor takes an extra. A failure is reported and the next one tried an
 * interval later; it never stops the daemon.
 */
export class ScheduledBackups implements Service {
  readonly name = 'scheduled backups';
  private cancelTimer: CancelTimer | null = null;
  private inFlight: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly deps: { store: Store; clock: Clock; events: DaemonEvents; schedule: BackupSchedule },
  ) {}

  async start(): Promise<void> {
    if (this.deps.store.backupTo === undefined) {
      const reason =
        'the [backup] settings are ignored: this store cannot copy itself (PostgreSQL: use pg_dump)';
      this.deps.events.emit('backup:failed', { error: new Error(reason) });
      return;
    }
    const newest = newestBackupAt(this.openFolder());
    this.armFor(nextBackupAt(newest, this.deps.schedule.everyMs, this.deps.clock.now()));
  }

  /** The names in the backups folder, which is made if missing; a folder it cannot use is a config mistake. */
  private openFolder(): string[] {
    const { dir } = this.deps.schedule;
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      return fs.readdirSync(dir);
    } catch (error) {
      throw new SchedError(
        'VALIDATION_FAILED',
        `Cannot use the backup folder ${dir}: ${(error as Error).message}.`,
        {
          hint: "Set backup.dir to a folder the daemon's user may create and write to, or turn it off.",
          details: { dir },
        },
      );
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    await this.inFlight;
  }

  private armFor(wallMs: number): void {
    if (this.stopped) return;
    this.cancelTimer = wallTimer(this.deps.clock, wallMs, () => {
      this.inFlight = this.takeOne().finally(() => {
        this.inFlight = null;
        this.armFor(this.deps.clock.now() + this.deps.schedule.everyMs);
      });
    });
  }

  private async takeOne(): Promise<void> {
    const { store, clock, events, schedule } = this.deps;
    try {
      const takenAt = clock.now();
      const written = await store.backupTo!(path.join(schedule.dir, backupFileName(takenAt)), {
        force: false,
      });
      events.emit('backup:written', { ...written, takenAt, scheduled: true });
      for (const old of backupsBeyond(fs.readdirSync(schedule.dir), schedule.keep))
        fs.rmSync(path.join(schedule.dir, old), { force: true });
    } catch (error) {
      events.emit('backup:failed', { error: error as Error });
    }
  }
}

import type Database from 'better-sqlite3';
import type { Job } from '../../core/job.js';

/** The job definitions a node may run, as the store last told it, for firing and reading without it. */
export class JobCopies {
  constructor(private readonly db: Database.Database) {}

  /** Replaces the whole copy with `jobs`, read from the store at `at`. */
  replaceAll(jobs: readonly Job[], at: number): void {
    const insert = this.db.prepare('INSERT INTO job_copies (id, name, job) VALUES (?, ?, ?)');
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM job_copies').run();
      for (const job of jobs) insert.run(job.id, job.name, JSON.stringify(job));
      this.markRefreshed(at);
    })();
  }

  /** A job changed as this node saw it; a job it may not run (or no longer live) leaves the copy. */
  put(job: Job, keep: boolean): void {
    this.putAll([{ job, keep }]);
  }

  /** Jobs changed as this node saw them, in one transaction (one commit to disk for all). */
  putAll(changes: readonly { job: Job; keep: boolean }[]): void {
    const remove = this.db.prepare('DELETE FROM job_copies WHERE id = ?');
    const upsert = this.db.prepare(
      'INSERT INTO job_copies (id, name, job) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name, job = excluded.job',
    );
    // The copy is a cache of the store: a commit only a power cut could undo (WAL, synchronous=NORMAL: a
    // killed daemon loses nothing) spares an fsync per batch on every node; the run journal's stay FULL.
    this.db.pragma('synchronous = NORMAL');
    try {
      this.db.transaction(() => {
        for (const { job, keep } of changes) {
          if (keep) upsert.run(job.id, job.name, JSON.stringify(job));
          else remove.run(job.id);
        }
      })();
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  /** Every job in the copy, by id (ids are time-ordered, as the store lists them). */
  list(): Job[] {
    const rows = this.db.prepare('SELECT job FROM job_copies ORDER BY id').all() as { job: string }[];
    return rows.map((row) => JSON.parse(row.job) as Job);
  }

  /** A job by id or by name. */
  find(ref: string): Job | null {
    const row = this.db
      .prepare('SELECT job FROM job_copies WHERE id = ? OR name = ? LIMIT 1')
      .get(ref, ref) as { job: string } | undefined;
    return row === undefined ? null : (JSON.parse(row.job) as Job);
  }

  /** When the copy was last read whole from the store; null when it never was. */
  refreshedAt(): number | null {
    const row = this.db.prepare('SELECT refreshed_at FROM copy_refreshes WHERE id = 1').get() as
      { refreshed_at: number } | undefined;
    return row?.refreshed_at ?? null;
  }

  private markRefreshed(at: number): void {
    this.db
      .prepare(
        'INSERT INTO copy_refreshes (id, refreshed_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET refreshed_at = excluded.refreshed_at',
      )
      .run(at);
  }
}

import type Database from 'better-sqlite3';
import { statementCache } from './statement-cache.js';
import type { NewOccurrence } from '../store.js';

interface JournalRow {
  entry: string;
}

/** Where an entry is in the journal: the store's key of an occurrence, and the node that decided it. */
type EntryKey = Pick<NewOccurrence, 'jobId' | 'scheduledFor' | 'wall' | 'node'>;

/**
 * The ledger entries a node decided while the store was unreachable (an every-host instant skipped for an
 * overlap), kept until the store holds them: without them, an instant that neither ran nor is in the
 * ledger would say nothing of why. One entry per (job, instant, wall time, node), as journaled first; the
 * store keeps a node's first entry of an instant too, so a replay cut short and done again writes nothing twice.
 */
export class OccurrenceJournal {
  private readonly statement: (sql: string) => Database.Statement;

  constructor(db: Database.Database) {
    this.statement = statementCache(db);
  }

  add(entry: NewOccurrence): void {
    this.statement(
      `INSERT INTO journaled_occurrences (job_id, scheduled_for, wall, node, entry) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT DO NOTHING`,
    ).run(...keyValues(entry), JSON.stringify(entry));
  }

  /** The store holds the entry (or one of its instant already): the journal is done with it. */
  remove(entry: EntryKey): void {
    this.statement(
      'DELETE FROM journaled_occurrences WHERE job_id = ? AND scheduled_for = ? AND wall = ? AND node = ?',
    ).run(...keyValues(entry));
  }

  /**
   * The entries the store does not hold yet, oldest decision first. Only an every-host node journals an
   * entry, its own: one journaled before entries named their host is the node's that decided it.
   */
  pending(): NewOccurrence[] {
    const rows = this.statement(
      'SELECT entry FROM journaled_occurrences ORDER BY scheduled_for, job_id, node',
    ).all() as JournalRow[];
    return rows.map((row) => {
      const entry = JSON.parse(row.entry) as NewOccurrence;
      return { ...entry, host: entry.host ?? entry.node };
    });
  }

  hasPending(): boolean {
    return this.statement('SELECT 1 FROM journaled_occurrences LIMIT 1').get() !== undefined;
  }
}

/** No wall time is kept as '', as the store keys it: NULLs never collide in a key. */
function keyValues(entry: EntryKey): [string, number, string, string] {
  return [entry.jobId, entry.scheduledFor, entry.wall ?? '', entry.node];
}

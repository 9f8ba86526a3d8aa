import Database from 'better-sqlite3';
import { JobCopies } from './job-copies.js';
import { OccurrenceJournal } from './occurrence-journal.js';
import { RunJournal } from './run-journal.js';

/**
 * Its own small schema, not the store's: the file holds only what a node needs while the store cannot be
 * reached, and is rebuilt from the store whenever it can be. A version bump drops and recreates it (the
 * copy is refreshed at once; a journal is replayed before a daemon of a new version could start).
 */
const SCHEMA_VERSION = 1;
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS job_copies (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    job TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS copy_refreshes (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    refreshed_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS journaled_runs (
    id TEXT PRIMARY KEY,
    job_name TEXT NOT NULL,
    new_run TEXT NOT NULL,
    outcome TEXT,
    in_store INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE IF NOT EXISTS journaled_ends (
    run_id TEXT PRIMARY KEY,
    outcome TEXT NOT NULL,
    job_id TEXT
  );
  CREATE TABLE IF NOT EXISTS journaled_occurrences (
    job_id TEXT NOT NULL,
    scheduled_for INTEGER NOT NULL,
    wall TEXT NOT NULL,
    node TEXT NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (job_id, scheduled_for, wall, node)
  );
`;

/**
 * A node's local copy, in its home (`local-copy.db`, created 0600 by the caller): the job definitions it
 * may run, refreshed from the store, and the journal of the runs it fired, of the ends of runs it reached,
 * and of the ledger entries it decided, while the store was unreachable.
 * Every write is synchronous and durable before it returns, so a daemon killed mid-outage loses nothing.
 */
export class LocalCopy {
  readonly jobs: JobCopies;
  readonly runs: RunJournal;
  readonly occurrences: OccurrenceJournal;

  private constructor(private readonly db: Database.Database) {
    this.jobs = new JobCopies(db);
    this.runs = new RunJournal(db);
    this.occurrences = new OccurrenceJournal(db);
  }

  /** Whether anything waits to be written to the store: a run, a run's end, or a ledger entry. */
  hasPending(): boolean {
    return this.runs.hasPending() || this.occurrences.hasPending();
  }

  static open(file: string): LocalCopy {
    const db = new Database(file);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('busy_timeout = 5000');
      if (db.pragma('user_version', { simple: true }) !== SCHEMA_VERSION) {
        db.exec('DROP TABLE IF EXISTS job_copies; DROP TABLE IF EXISTS copy_refreshes;');
      }
      db.exec(SCHEMA);
      addJobOfJournaledEnds(db);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      return new LocalCopy(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  close(): void {
    this.db.close();
  }
}

/**
 * A journal written before ends named their job gains the column, its ends kept (NULL: a job not known). A
 * restarted daemon names a kept end's run by its job (see RunLauncher.adoptEndsKeptOffline).
 */
function addJobOfJournaledEnds(db: Database.Database): void {
  const columns = db.prepare('PRAGMA table_info(journaled_ends)').all() as { name: string }[];
  if (!columns.some((column) => column.name === 'job_id'))
    db.exec('ALTER TABLE journaled_ends ADD COLUMN job_id TEXT');
}

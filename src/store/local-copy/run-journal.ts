import type Database from 'better-sqlite3';
import { statementCache } from './statement-cache.js';
import type { Run, RunOutcome } from '../../core/run.js';
import type { NewRun } from '../store.js';
import { newRunToRun } from '../sql/row-mapping.js';

/** A run fired while the store could not be reached, as journaled until the store holds it. */
export interface JournaledRun {
  run: NewRun;
  jobName: string;
  /** How it ended, once it has (and the store did not hold it yet). */
  outcome: RunOutcome | null;
  /** The store holds the run (replayed while it still ran): its end goes to the store, not here. */
  inStore: boolean;
}

/** The end of a run the store holds, journaled while the store could not be reached to record it. */
export interface JournaledEnd {
  runId: string;
  /** null for an end journaled before ends named their job, or of a job this node no longer knew. */
  jobId: string | null;
  outcome: RunOutcome;
}

interface JournalRow {
  id: string;
  job_name: string;
  new_run: string;
  outcome: string | null;
  in_store: number;
}

/**
 * The runs a node fired from its local copy while the store was unreachable, each under its run id: the
 * replay writes a run to the store only if no run of that id is there, so replaying twice (after a crash
 * between the write and the journal's update, say) writes nothing twice.
 */
export class RunJournal {
  private readonly statement: (sql: string) => Database.Statement;

  /**
   * The runs the store holds that still run, kept here to be forgotten at their end: every run's end asks,
   * and a look in memory spares the others a write to the journal's file.
   */
  private readonly inStore: Set<string>;
  /**
   * The runs only the journal holds, kept here as well: every run's end, and every look for a run, asks
   * whether it is one of them, and almost never is (this daemon is the journal's only writer).
   */
  private readonly notInStore: Set<string>;

  constructor(db: Database.Database) {
    this.statement = statementCache(db);
    const rows = db.prepare('SELECT id, in_store FROM journaled_runs').all() as JournalRow[];
    this.inStore = new Set(rows.filter((row) => row.in_store === 1).map((row) => row.id));
    this.notInStore = new Set(rows.filter((row) => row.in_store !== 1).map((row) => row.id));
  }

  add(run: NewRun, jobName: string): void {
    this.statement('INSERT INTO journaled_runs (id, job_name, new_run) VALUES (?, ?, ?)').run(
      run.id,
      jobName,
      JSON.stringify(run),
    );
    this.notInStore.add(run.id);
  }

  /** Whether only the journal holds the run (the store does not yet). */
  holdsAlone(runId: string): boolean {
    return this.notInStore.has(runId);
  }

  /** Records how a journaled run ended; false when the store holds the run already (its end goes there). */
  finish(runId: string, outcome: RunOutcome): boolean {
    if (!this.notInStore.has(runId)) return false;
    const changed = this.statement('UPDATE journaled_runs SET outcome = ? WHERE id = ? AND in_store = 0').run(
      storedOutcome(outcome),
      runId,
    ).changes;
    return changed > 0;
  }

  /** How a run the store holds ended (its job, when known), while the store could not be reached to record it. */
  addEnd({ runId, jobId, outcome }: JournaledEnd): void {
    this.statement(
      'INSERT INTO journaled_ends (run_id, job_id, outcome) VALUES (?, ?, ?) ON CONFLICT (run_id) DO NOTHING',
    ).run(runId, jobId, storedOutcome(outcome));
  }

  /** The journaled ends of runs the store holds, oldest run first. */
  pendingEnds(): JournaledEnd[] {
    const rows = this.statement(
      'SELECT run_id, job_id, outcome FROM journaled_ends ORDER BY run_id',
    ).all() as {
      run_id: string;
      job_id: string | null;
      outcome: string;
    }[];
    return rows.map((row) => ({
      runId: row.run_id,
      jobId: row.job_id,
      outcome: JSON.parse(row.outcome) as RunOutcome,
    }));
  }

  removeEnd(runId: string): void {
    this.statement('DELETE FROM journaled_ends WHERE run_id = ?').run(runId);
  }

  /** The store now holds the run, still running: its end is written there. */
  markInStore(runId: string): void {
    this.statement('UPDATE journaled_runs SET in_store = 1 WHERE id = ?').run(runId);
    this.inStore.add(runId);
    this.notInStore.delete(runId);
  }

  /** The store took the end of a run it held since a replay while it ran: the journal is done with it. */
  settle(runId: string): void {
    if (!this.inStore.delete(runId)) return;
    this.statement('DELETE FROM journaled_runs WHERE id = ? AND in_store = 1').run(runId);
  }

  /** The store holds the run with its end: the journal is done with it. */
  remove(runId: string): void {
    this.statement('DELETE FROM journaled_runs WHERE id = ?').run(runId);
    this.inStore.delete(runId);
    this.notInStore.delete(runId);
  }

  get(runId: string): JournaledRun | null {
    const row = this.statement('SELECT * FROM journaled_runs WHERE id = ?').get(runId) as
      JournalRow | undefined;
    return row === undefined ? null : fromRow(row);
  }

  /** The run as the daemon sees it while only the journal holds it. */
  read(runId: string): Run | null {
    const entry = this.get(runId);
    if (entry === null) return null;
    const run = newRunToRun(entry.run, entry.jobName);
    return entry.outcome === null
      ? run
      : { ...run, ...entry.outcome, responseHeaders: entry.outcome.responseHeaders ?? null };
  }

  /** Journaled runs the store does not hold yet, oldest first (ids are time-ordered). */
  pending(): JournaledRun[] {
    const rows = this.statement(
      'SELECT * FROM journaled_runs WHERE in_store = 0 ORDER BY id',
    ).all() as JournalRow[];
    return rows.map(fromRow);
  }

  /** Whether anything waits to be written to the store: a run, or a run's end. */
  hasPending(): boolean {
    const query =
      'SELECT 1 FROM journaled_runs WHERE in_store = 0 UNION ALL SELECT 1 FROM journaled_ends LIMIT 1';
    return this.statement(query).get() !== undefined;
  }
}

/** The executor's failure cause is for the retry decision only and never stored. */
function storedOutcome(outcome: RunOutcome): string {
  const { cause: _cause, ...stored } = outcome;
  return JSON.stringify(stored);
}

function fromRow(row: JournalRow): JournaledRun {
  return {
    run: JSON.parse(row.new_run) as NewRun,
    jobName: row.job_name,
    outcome: row.outcome === null ? null : (JSON.parse(row.outcome) as RunOutcome),
    inStore: row.in_store === 1,
  };
}

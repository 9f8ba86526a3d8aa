import { performance } from 'node:perf_hooks';
import { v7 as uuidv7 } from 'uuid';
import { openSqliteConnection } from '../../dist/store/sqlite/connection.js';
import { rowCopier, withoutColumn } from './raw-group-commit.js';
import { readDatabase } from './runs-db.js';

/** The rows of one fired run in a daemon's database: its job, the run and the run's `run:fired` event. */
export function rowsOfOneFire(databasePath) {
  return readDatabase(databasePath, (db) => {
    const run = db.prepare('SELECT * FROM runs ORDER BY created_at, id LIMIT 1').get();
    if (run === undefined) throw new Error(`no run in ${databasePath} to copy the rows of`);
    const job = db.prepare('SELECT * FROM jobs WHERE id = ?').get(run.job_id);
    // The event's id is the log's sequence: the database gives each copy its own.
    const event = withoutColumn(
      db.prepare("SELECT * FROM events WHERE run_id = ? AND type = 'run:fired'").get(run.id),
      'id',
    );
    // As the fire inserts it: nothing of how it went yet.
    const fired = {
      ...run,
      state: 'scheduled',
      started_at: null,
      finished_at: null,
      http_status: null,
      response_headers: null,
      error: null,
    };
    return { job, run: fired, event };
  });
}

/**
 * What SQLite alone needs to record a burst of `count` fires durably, as the daemon's fire batch records
 * them: one transaction that advances each job's next fire (compare-and-set on it) and inserts its run and
 * the run's event, into a fresh database at `file` opened as the daemon opens its own, holding `count` copies
 * of the job. Prepared statements, no scheduler: the floor under the time from the instant to the runs being
 * startable. Returns the transaction's milliseconds.
 */
export function rawFire(template, { file, count }) {
  const sqlite = openSqliteConnection(file);
  try {
    const insertJob = rowCopier(sqlite, 'jobs', template.job);
    const insertRun = rowCopier(sqlite, 'runs', template.run);
    const insertEvent = rowCopier(sqlite, 'events', template.event);
    const jobIds = Array.from({ length: count }, () => uuidv7());
    const now = Date.now();
    // Due now, as each job of the burst was at its instant (its stored row has fired since).
    const due = template.run.scheduled_for;
    sqlite.transaction(() =>
      jobIds.forEach((id, index) =>
        insertJob({ id, name: `raw-${index}`, state: 'active', next_run_at: due }),
      ),
    )();
    const advance = sqlite.prepare(
      'UPDATE jobs SET next_run_at = ?, updated_at = ? WHERE id = ? AND next_run_at = ? RETURNING name',
    );
    const fireAll = sqlite.transaction(() => {
      for (const jobId of jobIds) {
        advance.get(null, now, jobId, due);
        const runId = uuidv7();
        insertRun({ id: runId, job_id: jobId, created_at: now });
        insertEvent({ job_id: jobId, run_id: runId, at: now });
      }
    });
    const started = performance.now();
    fireAll.immediate();
    return performance.now() - started;
  } finally {
    sqlite.close();
  }
}

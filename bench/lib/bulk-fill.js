import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { newId } from '../../dist/store/ids.js';
import { farFutureJobs, writeJobs } from './store-fill.js';

const ROWS_PER_TRANSACTION = 50_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * A million jobs in a minute or two, where SqliteStore.createJob writes a few thousand a second: one job
 * goes through the real createJob (which also migrates the new file), then its jobs row and its audit row
 * are copied `count − 1` times with prepared INSERTs, each copy with its own id, name (`<prefix>-<i>`) and
 * place in time. Every column is copied from the template rows, so the copies are what the store itself
 * writes, whatever columns the schema gains.
 *
 * The jobs run `true` every 24 h, "far in the future": their next fires are spread evenly from 1 h to 24 h
 * ahead (each anchored a day before its next fire), so none is due while the benchmark runs and the due
 * index holds a million distinct instants, as a real store would.
 */
export async function copyFarFutureJobs(databasePath, count, prefix) {
  const started = performance.now();
  const { jobs } = await writeJobs(databasePath, farFutureJobs(1, prefix));
  const templateId = jobs[0].id;
  const db = new Database(databasePath);
  try {
    const jobRow = db.prepare('SELECT * FROM jobs WHERE id = ?').get(templateId);
    const auditRow = db.prepare('SELECT * FROM audit_log WHERE job_id = ?').get(templateId);
    const insertJob = insertStatement(db, 'jobs', jobRow);
    const insertAudit = insertStatement(db, 'audit_log', auditRow);
    const definition = JSON.parse(jobRow.definition);
    const stored = JSON.parse(auditRow.after);
    const now = jobRow.created_at;
    const spreadMs = DAY_MS - HOUR_MS;
    const copyRange = db.transaction((from, to) => {
      for (let i = from; i < to; i++) {
        const id = newId();
        const name = `${prefix}-${i}`;
        const nextRunAt = now + HOUR_MS + Math.floor((i * spreadMs) / count);
        const copy = {
          ...definition,
          name,
          schedule: { ...definition.schedule, anchorMs: nextRunAt - DAY_MS },
        };
        insertJob.run({
          ...jobRow,
          id,
          name,
          definition: JSON.stringify(copy),
          next_run_at: nextRunAt,
        });
        insertAudit.run({
          ...auditRow,
          id: newId(),
          job_id: id,
          after: JSON.stringify({ ...stored, ...copy, id, nextRunAt }),
        });
      }
    });
    for (let from = 1; from < count; from += ROWS_PER_TRANSACTION)
      copyRange(from, Math.min(count, from + ROWS_PER_TRANSACTION));
    // What the daemon's planner reads at start: statistics for a million rows, not for one.
    db.exec('ANALYZE');
  } finally {
    db.close();
  }
  return { writeMs: performance.now() - started };
}

function insertStatement(db, table, row) {
  const columns = Object.keys(row);
  return db.prepare(
    `INSERT INTO ${table} (${columns.map((column) => `"${column}"`).join(', ')}) ` +
      `VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
  );
}

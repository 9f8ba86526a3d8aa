import { performance } from 'node:perf_hooks';
import { v7 as uuidv7 } from 'uuid';
import { openSqliteConnection } from '../../dist/store/sqlite/connection.js';
import { readDatabase } from './runs-db.js';

/** The rows the daemon wrote for one create (its newest): the job, its audit entry and its event. */
export function rowsOfOneCreate(databasePath) {
  return readDatabase(databasePath, (db) => {
    const job = db.prepare('SELECT * FROM jobs ORDER BY created_at DESC, id DESC LIMIT 1').get();
    if (job === undefined) throw new Error(`no job in ${databasePath} to copy the rows of`);
    return {
      jobs: job,
      audit_log: db.prepare("SELECT * FROM audit_log WHERE job_id = ? AND action = 'job.create'").get(job.id),
      // The event's id is the log's sequence: the database gives each copy its own.
      events: withoutColumn(
        db.prepare("SELECT * FROM events WHERE job_id = ? AND type = 'job:created'").get(job.id),
        'id',
      ),
    };
  });
}

/** `row` without `column`; throws when there is no row (the write it should copy was not found). */
export function withoutColumn(row, column) {
  if (row === undefined) throw new Error('the daemon wrote no such row: nothing to copy');
  const { [column]: _dropped, ...rest } = row;
  return rest;
}

/**
 * What SQLite alone does with a create's writes: copies of `template` (new ids and names) inserted by prepared
 * statements, `perCommit` creates to a transaction, into a fresh database at `file` opened exactly as the
 * daemon opens its own (same schema, indexes, triggers, WAL and synchronous=FULL). No request, no validation,
 * no savepoint per write: the floor a create's durable cost cannot go below. `rounds` of `perRound` creates
 * after `warmup`; returns each round's creates per second and this thread's CPU per create (µs), which
 * is less than its time per create by what it waited for the disk.
 */
export function rawGroupCommit(template, { file, warmup, rounds, perRound, perCommit }) {
  const sqlite = openSqliteConnection(file);
  try {
    const copies = Object.entries(template).map(([table, row]) => ({
      table,
      insert: rowCopier(sqlite, table, row),
    }));
    let serial = 0;
    const createOne = () => {
      const jobId = uuidv7();
      const name = `raw-${serial++}`;
      for (const { table, insert } of copies) {
        if (table === 'jobs') insert({ id: jobId, name });
        else if (table === 'audit_log') insert({ id: uuidv7(), job_id: jobId });
        else insert({ job_id: jobId });
      }
    };
    const commitBatch = sqlite.transaction((count) => {
      for (let index = 0; index < count; index++) createOne();
    });
    const write = (count) => {
      for (let done = 0; done < count; done += perCommit)
        commitBatch.immediate(Math.min(perCommit, count - done));
    };
    write(warmup);
    const measured = [];
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      const cpuBefore = threadCpuMicros();
      write(perRound);
      measured.push({
        rate: perRound / ((performance.now() - started) / 1000),
        cpuMicrosPerCreate: (threadCpuMicros() - cpuBefore) / perRound,
      });
    }
    return measured;
  } finally {
    sqlite.close();
  }
}

/** This process's CPU so far; while the rounds run (synchronously) that is their thread's. */
function threadCpuMicros() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** An insert of copies of `row` into `table`, each with `changes` (column → value) applied. */
export function rowCopier(sqlite, table, row) {
  const columns = Object.keys(row);
  const statement = sqlite.prepare(
    `INSERT INTO "${table}" (${columns.map((column) => `"${column}"`).join(', ')}) ` +
      `VALUES (${columns.map(() => '?').join(', ')})`,
  );
  return (changes) =>
    statement.run(columns.map((column) => (column in changes ? changes[column] : row[column])));
}

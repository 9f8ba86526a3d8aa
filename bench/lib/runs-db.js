import Database from 'better-sqlite3';

const RUN_COLUMNS = `id, node, job_id AS jobId, scheduled_for AS scheduledFor, created_at AS createdAt,
       started_at AS startedAt, finished_at AS finishedAt, state, "trigger" AS trigger`;

/**
 * Every run in a daemon's database, read read-only after the daemon stopped (so reading cannot disturb
 * what was measured). Instants are epoch ms; `createdAt` is when the daemon fired the run.
 */
export function readRuns(databasePath) {
  return readRunsSince(databasePath, -Infinity);
}

/**
 * The runs created at or after `fromMs` (epoch ms), read-only. Also used on a running daemon's database
 * (SQLite's WAL lets a reader in beside the daemon), where one read costs it little.
 */
export function readRunsSince(databasePath, fromMs) {
  const from = Number.isFinite(fromMs) ? fromMs : Number.MIN_SAFE_INTEGER;
  return readDatabase(databasePath, (db) =>
    db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE created_at >= ?`).all(from),
  );
}

/** The jobs `every <intervalMs>` in a daemon's database, read-only: `{ id, anchorMs }` each. */
export function readEveryJobs(databasePath, intervalMs) {
  return readDatabase(databasePath, (db) =>
    db
      .prepare(
        `SELECT id, json_extract(definition, '$.schedule.anchorMs') AS anchorMs FROM jobs
          WHERE json_extract(definition, '$.schedule.kind') = 'every'
            AND json_extract(definition, '$.schedule.intervalMs') = ? AND deleted_at IS NULL`,
      )
      .all(intervalMs),
  );
}

/** `read(db)` on a daemon's database opened read-only (beside a running daemon too: WAL), closed after. */
export function readDatabase(databasePath, read) {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

import Database from 'better-sqlite3';

/**
 * Every run in a daemon's database, read read-only after the daemon stopped (so reading cannot disturb
 * what was measured). Instants are epoch ms; `createdAt` is when the daemon fired the run.
 */
export function readRuns(databasePath) {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(
        `SELECT id, node, job_id AS jobId, scheduled_for AS scheduledFor, created_at AS createdAt,
                started_at AS startedAt, finished_at AS finishedAt, state, "trigger" AS trigger
           FROM runs`,
      )
      .all();
  } finally {
    db.close();
  }
}

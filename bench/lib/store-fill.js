import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { normalizeJobInput } from '../../dist/core/normalize.js';
import { nextFireTime } from '../../dist/core/schedule/next.js';
import { newId } from '../../dist/store/ids.js';
import { openSqliteConnection } from '../../dist/store/sqlite/connection.js';
import { SqliteStore } from '../../dist/store/sqlite/sqlite-store.js';

const JOBS_PER_TRANSACTION = 5_000;
const TIMEZONE = 'UTC';

/**
 * Writes jobs (`{ definition, nextRunAt }`, any iterable) straight into the store file a daemon will
 * open, through the real SqliteStore.createJob, before the daemon starts. Much faster than the socket:
 * the creates of a batch share one transaction (createJob's own nests as a savepoint), where the daemon
 * commits, and fsyncs, each create alone. And nothing talks to the daemon while it is being measured.
 */
export async function writeJobs(databasePath, jobs) {
  const started = performance.now();
  const sqlite = openSqliteConnection(databasePath);
  const store = new SqliteStore(sqlite);
  const now = Date.now();
  const written = [];
  let batch = 0;
  try {
    for (const { definition, nextRunAt } of jobs) {
      if (batch === 0) sqlite.exec('BEGIN IMMEDIATE');
      const job = await store.createJob(
        { id: newId(), definition, owner: os.userInfo().username, now, nextRunAt },
        { id: newId(), at: now, actor: 'bench', action: 'job.create' },
      );
      written.push({ id: job.id, schedule: job.schedule, nextRunAt: job.nextRunAt });
      if (++batch === JOBS_PER_TRANSACTION) {
        sqlite.exec('COMMIT');
        batch = 0;
      }
    }
    if (batch > 0) sqlite.exec('COMMIT');
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw error;
  } finally {
    await store.close();
  }
  return { jobs: written, writeMs: performance.now() - started };
}

/**
 * `count` jobs due far in the future (`every 24h`, running `true`, with `extra` job input such as
 * `{ expectSuccessEvery: '1h' }`). Normalized once and renamed, since normalizing each of 100,000 jobs would
 * take longer than writing them.
 */
export function* farFutureJobs(count, prefix, extra = {}) {
  const now = Date.now();
  const template = normalize({ name: `${prefix}-0`, every: '24h', argv: ['true'], ...extra }, now);
  const nextRunAt = nextFireTime(template.schedule, now, TIMEZONE);
  for (let i = 0; i < count; i++) yield { definition: { ...template, name: `${prefix}-${i}` }, nextRunAt };
}

/** A job `every <interval>` running `true`, anchored at `anchorMs` (its first fire is one interval later). */
export function everyJob(name, every, anchorMs) {
  const definition = normalize({ name, every, argv: ['true'] }, anchorMs);
  return { definition, nextRunAt: nextFireTime(definition.schedule, anchorMs, TIMEZONE) };
}

/** A one-shot job at `atMs` running `true`. */
export function atJob(name, atMs) {
  const definition = normalize({ name, at: new Date(atMs).toISOString(), argv: ['true'] }, Date.now());
  return { definition, nextRunAt: atMs };
}

function normalize(input, now) {
  return normalizeJobInput({ ...input, timezone: TIMEZONE }, { now, defaultTimezone: TIMEZONE });
}

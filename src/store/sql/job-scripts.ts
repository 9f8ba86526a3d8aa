import type { Job } from '../../core/job.js';
import { nextVersion } from '../job-versions.js';
import { dependencyRows } from '../ledger-rows.js';
import {
  idempotencyKeyTaken,
  jobCancelled,
  jobNotFound,
  nameTaken,
  versionConflict,
} from '../store-errors.js';
import type { AuditStamp, IdempotencyClaim, JobChange } from '../store.js';
import type { ScriptDialect } from './dialect.js';
import { recordEvent, type EventBatch } from './event-scripts.js';
import { auditRow, auditToRow, jobToRow, rowToJob } from './row-mapping.js';
import { step, type Script } from './script.js';
import type { Session } from './session.js';

// Transaction scripts: they run inside a transaction the store opened, and a SchedError thrown here rolls
// it back.

export function* createJob(
  dialect: ScriptDialect,
  session: Session,
  batch: EventBatch,
  job: Job,
  audit: AuditStamp,
  idempotency?: IdempotencyClaim,
): Script<Job> {
  yield* writeJobRow(dialect, session, job, session.statements.insertJob, {});
  yield* insertDependencies(session, job);
  // The audit image, the idempotent reply and the event all hold the job as it is: serialised once.
  const json = JSON.stringify(job);
  yield* step(session.run(session.statements.insertAudit, auditRow(audit, job.id, null, json)));
  if (idempotency) yield* recordIdempotentResponse(session, idempotency, job, json);
  yield* step(session.announceJobChange(job.id));
  const event = { type: 'job:created', at: audit.at, jobId: job.id, runId: null, data: job } as const;
  yield* recordEvent(session, batch, event, json);
  return job;
}

/**
 * Updates and cancels share one path: lock the row, check, write the next version, audit. The lock (the
 * single writer, in SQLite) makes read-check-write atomic against other daemons.
 */
export function* changeJob(
  dialect: ScriptDialect,
  session: Session,
  batch: EventBatch,
  id: string,
  expectedVersion: number,
  change: JobChange,
  now: number,
  audit: AuditStamp,
): Script<Job> {
  const { statements } = session;
  const row = yield* step(session.first(statements.jobForUpdate, { id }));
  if (!row) throw jobNotFound(id);
  const before = rowToJob(row);
  if (before.deletedAt !== null) throw jobCancelled(before.name, id);
  if (before.version !== expectedVersion) throw versionConflict(before.name, expectedVersion, before.version);

  const after = nextVersion(before, change, now);
  yield* writeJobRow(dialect, session, after, statements.updateJob, { expectedVersion });
  if (after.deletedAt !== null || change.definition !== undefined)
    yield* step(session.run(statements.deleteDependencies, { jobId: id }));
  if (after.deletedAt === null && change.definition !== undefined) yield* insertDependencies(session, after);
  yield* step(session.run(statements.insertAudit, auditToRow(audit, id, before, after)));
  yield* step(session.announceJobChange(id));
  const type = after.deletedAt !== null ? 'job:cancelled' : 'job:updated';
  yield* recordEvent(session, batch, { type, at: now, jobId: id, runId: null, data: after });
  return after;
}

function* writeJobRow(
  dialect: ScriptDialect,
  session: Session,
  job: Job,
  statement: Session['statements']['insertJob'],
  params: Record<string, unknown>,
): Script<void> {
  try {
    yield* step(session.run(statement, { ...jobToRow(job, dialect.encoding), ...params }));
  } catch (error) {
    if (dialect.isUniqueViolation(error, 'liveName')) throw nameTaken(job.name);
    throw error;
  }
}

/** The job's `after`/`afterAll` links as rows, in the transaction that writes the job. */
function* insertDependencies(session: Session, job: Job): Script<void> {
  for (const row of dependencyRows(job)) yield* step(session.run(session.statements.insertDependency, row));
}

/** Stores the response under the claim's key; throws IDEMPOTENCY_MISMATCH while the key is taken. */
export function* recordIdempotentResponse(
  session: Session,
  claim: IdempotencyClaim,
  response: unknown,
  responseJson = JSON.stringify(response),
): Script<void> {
  const stored = yield* step(
    session.first(session.statements.claimIdempotencyKey, { ...claim, response: responseJson }),
  );
  if (!stored) throw idempotencyKeyTaken(claim.key);
}

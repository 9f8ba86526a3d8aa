import type { Job } from '../../core/job.js';
// The error builders are backend-neutral (SchedErrors only), so both stores say the same.
import {
  idempotencyKeyTaken,
  jobCancelled,
  jobNotFound,
  nameTaken,
  versionConflict,
} from '../store-errors.js';
import type { AuditStamp, IdempotencyClaim, JobChange } from '../store.js';
import { isUniqueViolation } from './pg-errors.js';
import { LIVE_NAME_INDEX } from './predicates.js';
import { auditToRow, dependencyRows, jobToRow, rowToJob } from './row-mapping.js';
import { jobDependencies } from './schema.js';
import type { Session } from './session.js';
import { nextVersion } from '../job-versions.js';

// These run inside a transaction the store opened; a SchedError thrown here rolls it back.

export async function insertJob(session: Session, job: Job, audit: AuditStamp): Promise<void> {
  try {
    await session.statements.insertJob.execute(jobToRow(job));
  } catch (error) {
    if (isUniqueViolation(error, LIVE_NAME_INDEX)) throw nameTaken(job.name);
    throw error;
  }
  await insertDependencies(session, job);
  await session.statements.insertAudit.execute(auditToRow(audit, job.id, null, job));
}

/**
 * Updates and cancels share one path: lock the row, check, write the next version, audit. The row lock
 * makes read-check-write atomic against other daemons, as the single writer does in SQLite.
 */
export async function changeJob(
  session: Session,
  id: string,
  expectedVersion: number,
  change: JobChange,
  now: number,
  audit: AuditStamp,
): Promise<Job> {
  const { statements } = session;
  const [row] = await statements.jobForUpdate.execute({ id });
  if (!row) throw jobNotFound(id);
  const before = rowToJob(row);
  if (before.deletedAt !== null) throw jobCancelled(before.name, id);
  if (before.version !== expectedVersion) throw versionConflict(before.name, expectedVersion, before.version);

  const after = nextVersion(before, change, now);
  try {
    await statements.updateJob.execute(jobToRow(after));
  } catch (error) {
    if (isUniqueViolation(error, LIVE_NAME_INDEX)) throw nameTaken(after.name);
    throw error;
  }
  if (after.deletedAt !== null) await statements.deleteDependencies.execute({ jobId: id });
  else if (change.definition !== undefined) {
    await statements.deleteDependencies.execute({ jobId: id });
    await insertDependencies(session, after);
  }
  await statements.insertAudit.execute(auditToRow(audit, id, before, after));
  return after;
}

/** The job's `after`/`afterAll` links as rows; a definition may name one upstream twice, the key keeps one. */
async function insertDependencies({ db }: Session, job: Job): Promise<void> {
  const rows = dependencyRows(job);
  if (rows.length > 0) await db.insert(jobDependencies).values(rows).onConflictDoNothing();
}

/** Stores the response under the claim's key; throws IDEMPOTENCY_MISMATCH while the key is taken. */
export async function recordIdempotentResponse(
  { statements }: Session,
  claim: IdempotencyClaim,
  response: unknown,
): Promise<void> {
  const stored = await statements.claimIdempotencyKey.execute({
    ...claim,
    response: JSON.stringify(response),
  });
  if (stored.length === 0) throw idempotencyKeyTaken(claim.key);
}

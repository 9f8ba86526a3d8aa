import { hasSecrets } from '../../core/secrets/secret-fields.js';
import { withDefinitionDefaults, type StoredDefinition } from '../../core/stored-definition.js';
import type { Job, JobDefinition } from '../../core/job.js';
import type { Run, RunOutcome } from '../../core/run.js';
import type { AuditEntry, AuditStamp, NewJob, NewRun } from '../store.js';
import type { AuditRecord, JobRecord, RowEncoding, RunRecord } from './records.js';

export function rowToJob(row: JobRecord): Job {
  const definition = withDefinitionDefaults(JSON.parse(row.definition) as StoredDefinition);
  // Assigning onto the parsed object is ~6x cheaper than spreading it into a new one (dueJobs maps
  // up to hundreds of rows per tick).
  return Object.assign(definition, {
    id: row.id,
    state: row.state,
    version: row.version,
    owner: row.owner,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    deletedAt: row.deletedAt,
    nextRunAt: row.nextRunAt,
  });
}

/**
 * The fields a job has beyond its definition that are columns of their own. `overdueSince`, which listings
 * add, is not one: a job that carries it keeps it in its definition's JSON, as it always has.
 */
type JobRowFields = Omit<Job, keyof JobDefinition | 'overdueSince'>;

/** Every one of JobRowFields, and only those: a field added to Job must be placed here or in the definition. */
const JOB_ROW_FIELDS = new Set(
  Object.keys({
    id: true,
    state: true,
    version: true,
    owner: true,
    createdAt: true,
    updatedAt: true,
    deletedAt: true,
    nextRunAt: true,
  } satisfies Record<keyof JobRowFields, true>),
);

export function jobToRow(job: Job, encoding: RowEncoding): JobRecord {
  const definition = definitionOf(job);
  return {
    id: job.id,
    name: definition.name,
    state: job.state,
    definition: JSON.stringify(definition),
    labels: encoding.labels(definition.labels),
    owner: job.owner,
    version: job.version,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    deletedAt: job.deletedAt,
    nextRunAt: job.nextRunAt,
    expectsSuccess: definition.alerts?.expectSuccessEveryMs != null,
    holdsSecrets: hasSecrets(definition),
  };
}

/**
 * The job without its row's fields. Copied key by key: on Node 20, rest destructuring (and a spread followed
 * by new keys) builds the object in V8's runtime, about 3x (a spread: 10x) the cost, on every create.
 */
function definitionOf(job: Job): JobDefinition {
  const definition: Record<string, unknown> = {};
  for (const key of Object.keys(job)) if (!JOB_ROW_FIELDS.has(key)) definition[key] = job[key as keyof Job];
  return definition as unknown as JobDefinition;
}

export function newJobToJob(job: NewJob): Job {
  const fields: JobRowFields = {
    id: job.id,
    state: job.state ?? 'active',
    version: 1,
    owner: job.owner,
    createdAt: job.now,
    updatedAt: job.now,
    deletedAt: null,
    nextRunAt: job.nextRunAt,
  };
  // Not `{ ...definition, id, ... }`: see definitionOf.
  return Object.assign({}, job.definition, fields);
}

/** The run a new run row stands for, as the store gives it back. */
export function newRunToRun(run: NewRun, jobName: string): Run {
  return {
    id: run.id,
    jobId: run.jobId,
    jobName,
    scheduledFor: run.scheduledFor,
    attempt: run.attempt,
    trigger: run.trigger,
    state: run.state,
    node: run.node,
    fence: run.fence,
    createdAt: run.now,
    startedAt: run.state === 'running' ? run.now : null,
    finishedAt: null,
    pid: null,
    exitCode: null,
    httpStatus: null,
    signal: null,
    error: null,
    stdoutTail: '',
    stderrTail: '',
    stdoutBytes: null,
    stderrBytes: null,
    responseHeaders: null,
    retriedBy: null,
    dueAt: run.dueAt,
    host: run.host ?? '',
  };
}

/** A run row as stored (headers as JSON text) to the Run the rest of the daemon sees. */
export function rowToRun(row: RunRecord): Run {
  return {
    ...row,
    responseHeaders:
      row.responseHeaders === null ? null : (JSON.parse(row.responseHeaders) as Record<string, string>),
  };
}

/** The columns an outcome sets, as stored. */
export function outcomeToRow(outcome: RunOutcome, encoding: RowEncoding) {
  return {
    ...outcome,
    httpStatus: outcome.httpStatus ?? null,
    stdoutBytes: outcome.stdoutBytes ?? null,
    stderrBytes: outcome.stderrBytes ?? null,
    error: outcome.error === null ? null : encoding.text(outcome.error),
    responseHeaders: outcome.responseHeaders ? JSON.stringify(outcome.responseHeaders) : null,
  };
}

export function auditToRow(
  stamp: AuditStamp,
  jobId: string | null,
  before: unknown,
  after: unknown,
): AuditRecord {
  return auditRow(
    stamp,
    jobId,
    before == null ? null : JSON.stringify(before),
    after == null ? null : JSON.stringify(after),
  );
}

/** An audit row whose images are already JSON text: a create serialises its job once for all it writes. */
export function auditRow(
  stamp: AuditStamp,
  jobId: string | null,
  before: string | null,
  after: string | null,
): AuditRecord {
  return { id: stamp.id, at: stamp.at, actor: stamp.actor, action: stamp.action, jobId, before, after };
}

export function rowToAudit(row: AuditRecord): AuditEntry {
  return {
    id: row.id,
    at: row.at,
    actor: row.actor,
    action: row.action,
    jobId: row.jobId,
    before: row.before === null ? null : (JSON.parse(row.before) as unknown),
    after: row.after === null ? null : (JSON.parse(row.after) as unknown),
  };
}

import type { Column, Table } from 'drizzle-orm';
import type { ApiToken } from '../../core/access/api-token.js';
import type { StoredOccurrence } from '../ledger-rows.js';
import type { AuditRecord, IdempotencyRow, JobRecord, RunRecord } from './records.js';

// The columns both schemas give each table, by their names in TypeScript.
export const JOB_COLUMNS = [
  'id',
  'name',
  'state',
  'definition',
  'labels',
  'owner',
  'version',
  'createdAt',
  'updatedAt',
  'deletedAt',
  'nextRunAt',
  'expectsSuccess',
  'holdsSecrets',
] as const;
/** What a change of a job may set. */
export const CHANGEABLE_JOB_COLUMNS = [
  'name',
  'state',
  'definition',
  'labels',
  'version',
  'updatedAt',
  'deletedAt',
  'nextRunAt',
  'expectsSuccess',
  'holdsSecrets',
] as const;
/** What a new run sets; the rest (output, outcome) starts at its column's default. */
export const NEW_RUN_COLUMNS = [
  'id',
  'jobId',
  'scheduledFor',
  'attempt',
  'trigger',
  'state',
  'node',
  'fence',
  'createdAt',
  'startedAt',
  'dueAt',
  'host',
] as const;
/** What finishing a run sets. */
export const OUTCOME_COLUMNS = [
  'state',
  'finishedAt',
  'exitCode',
  'httpStatus',
  'signal',
  'error',
  'stdoutTail',
  'stderrTail',
  'stdoutBytes',
  'stderrBytes',
  'responseHeaders',
] as const;
export const AUDIT_COLUMNS = ['id', 'at', 'actor', 'action', 'jobId', 'before', 'after'] as const;
export const OCCURRENCE_COLUMNS = [
  'jobId',
  'scheduledFor',
  'wall',
  'outcome',
  'reason',
  'node',
  'host',
  'decidedAt',
] as const;
export const DEPENDENCY_COLUMNS = ['jobId', 'upstreamId', 'on'] as const;
export const DELIVERY_COLUMNS = [
  'id',
  'jobId',
  'runId',
  'kind',
  'target',
  'dedupKey',
  'state',
  'attempts',
  'dueAt',
  'createdAt',
  'finishedAt',
  'answer',
  'lastError',
  'detail',
] as const;
export const API_TOKEN_COLUMNS = [
  'id',
  'name',
  'hash',
  'role',
  'owner',
  'createdAt',
  'expiresAt',
  'lastUsedAt',
  'revokedAt',
  'createdBy',
] as const;
export const EVENT_COLUMNS = ['type', 'node', 'at', 'jobId', 'runId', 'data'] as const;
export const IDEMPOTENCY_COLUMNS = ['key', 'method', 'fingerprint', 'response', 'createdAt'] as const;

/** A table with these columns whose rows have the shape the shared statements read. */
type TableOf<Columns extends readonly string[], Row = unknown> = Table &
  Record<Columns[number], Column> & { $inferSelect: Row };
type RunColumns = [...typeof NEW_RUN_COLUMNS, ...typeof OUTCOME_COLUMNS, 'pid', 'retriedBy'];

/**
 * A dialect's tables, as the shared statements and queries use them: a schema that drifts from these
 * columns and rows fails to compile where its dialect hands its tables over.
 */
export interface StoreTables {
  jobs: TableOf<typeof JOB_COLUMNS, JobRecord>;
  /** `jobs` under another name, to join a dependency link to its upstream job. */
  upstreamJobs: TableOf<typeof JOB_COLUMNS, JobRecord>;
  runs: TableOf<RunColumns, Omit<RunRecord, 'jobName'>>;
  auditLog: TableOf<typeof AUDIT_COLUMNS, AuditRecord>;
  occurrences: TableOf<typeof OCCURRENCE_COLUMNS, StoredOccurrence>;
  jobDependencies: TableOf<typeof DEPENDENCY_COLUMNS>;
  idempotencyKeys: TableOf<typeof IDEMPOTENCY_COLUMNS, IdempotencyRow>;
  meta: TableOf<readonly ['key', 'value']>;
  deliveries: TableOf<typeof DELIVERY_COLUMNS>;
  overdueJobs: TableOf<readonly ['jobId', 'since']>;
  events: TableOf<readonly ['id', ...typeof EVENT_COLUMNS], EventRow & { id: number }>;
  apiTokens: TableOf<typeof API_TOKEN_COLUMNS, ApiToken & { hash: string }>;
}

/** An outbox row as written: the payload is JSON text. */
export interface EventRow {
  type: string;
  node: string;
  at: number;
  jobId: string;
  runId: string | null;
  data: string;
}

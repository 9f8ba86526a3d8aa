import { sql } from 'drizzle-orm';
import type { Placeholder, SQL } from 'drizzle-orm';
import { OUTCOME_COLUMNS, type StoreTables } from './tables.js';

export const param = (name: string): Placeholder => sql.placeholder(name);

/**
 * `set()` is typed without placeholders, but takes them: drizzle wraps any value that is not SQL in a
 * Param carrying the column's encoder, so bytea and jsonb values are still encoded on execution.
 */
export const setParam = (name: string): SQL => sql.placeholder(name) as unknown as SQL;

/** `{ column: placeholder named after it }` for an INSERT's values or an UPDATE's set. */
export function placeholders(columns: readonly string[], as: (name: string) => unknown = param) {
  return Object.fromEntries(columns.map((column) => [column, as(column)]));
}

/**
 * What a run's end sets: its outcome, and its start when the end brings one (a run without a process, whose
 * start stored only its event), else the start stored already.
 */
export function runEndSet({ runs }: StoreTables) {
  return {
    ...placeholders(OUTCOME_COLUMNS, setParam),
    startedAt: sql`coalesce(${sql.placeholder('startedAt')}, ${runs.startedAt})`,
  };
}

/** An ApiToken straight from SQL: every column but the hash. */
export function apiTokenColumns({ apiTokens }: StoreTables) {
  return {
    id: apiTokens.id,
    name: apiTokens.name,
    role: apiTokens.role,
    owner: apiTokens.owner,
    createdAt: apiTokens.createdAt,
    expiresAt: apiTokens.expiresAt,
    lastUsedAt: apiTokens.lastUsedAt,
    revokedAt: apiTokens.revokedAt,
    createdBy: apiTokens.createdBy,
  };
}

/** A RunSummary straight from SQL: every run column but the output tails, plus the job's name. */
export function runSummaryColumns({ runs, jobs }: StoreTables) {
  return {
    id: runs.id,
    jobId: runs.jobId,
    jobName: jobs.name,
    scheduledFor: runs.scheduledFor,
    attempt: runs.attempt,
    trigger: runs.trigger,
    state: runs.state,
    node: runs.node,
    fence: runs.fence,
    createdAt: runs.createdAt,
    startedAt: runs.startedAt,
    finishedAt: runs.finishedAt,
    pid: runs.pid,
    exitCode: runs.exitCode,
    httpStatus: runs.httpStatus,
    signal: runs.signal,
    error: runs.error,
    retriedBy: runs.retriedBy,
    dueAt: runs.dueAt,
    host: runs.host,
  };
}

/** A whole run (a RunRecord) with its job's name. */
export function runColumns(tables: StoreTables) {
  const { runs } = tables;
  return {
    ...runSummaryColumns(tables),
    stdoutTail: runs.stdoutTail,
    stderrTail: runs.stderrTail,
    stdoutBytes: runs.stdoutBytes,
    stderrBytes: runs.stderrBytes,
    responseHeaders: runs.responseHeaders,
  };
}

/** A Delivery straight from SQL, with its job's name. */
export function deliveryColumns({ deliveries, jobs }: StoreTables) {
  return {
    id: deliveries.id,
    jobId: deliveries.jobId,
    jobName: jobs.name,
    runId: deliveries.runId,
    kind: deliveries.kind,
    target: deliveries.target,
    dedupKey: deliveries.dedupKey,
    state: deliveries.state,
    attempts: deliveries.attempts,
    dueAt: deliveries.dueAt,
    createdAt: deliveries.createdAt,
    finishedAt: deliveries.finishedAt,
    answer: deliveries.answer,
    lastError: deliveries.lastError,
    detail: deliveries.detail,
  };
}

/** An occurrence with its job's name. */
export function occurrenceColumns({ occurrences, jobs }: StoreTables) {
  return {
    jobId: occurrences.jobId,
    jobName: jobs.name,
    scheduledFor: occurrences.scheduledFor,
    wall: occurrences.wall,
    outcome: occurrences.outcome,
    reason: occurrences.reason,
    node: occurrences.node,
    host: occurrences.host,
    decidedAt: occurrences.decidedAt,
  };
}

/**
 * Partial indexes are only used when the query repeats their WHERE: SQLite matches it literally, and
 * PostgreSQL's planner proves nothing from a bound parameter ($1 = 'active') in a generic plan. So these
 * stay literal SQL, as the schemas' index definitions write them.
 */
export function statePredicates({ jobs, runs }: StoreTables) {
  return {
    due: sql`${jobs.state} = 'active' AND ${jobs.deletedAt} IS NULL AND ${jobs.nextRunAt} IS NOT NULL`,
    unfinished: sql`${runs.state} IN ('scheduled', 'running')`,
    waiting: sql`${runs.state} = 'scheduled'`,
    final: sql`${runs.state} IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'lost')`,
  };
}

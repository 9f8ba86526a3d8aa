import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import {
  API_TOKEN_ROLE_VALUES,
  DELIVERY_KIND_VALUES,
  DELIVERY_STATE_VALUES,
  DEPENDENCY_ON_VALUES,
  JOB_STATE_VALUES,
  OCCURRENCE_OUTCOME_VALUES,
  RUN_STATE_VALUES,
  RUN_TRIGGER_VALUES,
  inList,
} from '../schema-values.js';
import {
  ACTIVE_WITHOUT_NEXT_RUN,
  jobInState,
  EXPECTS_SUCCESS,
  HOLDS_SECRETS,
} from '../job-index-conditions.js';

// drizzle-kit loads this file on its own: it imports nothing from src/ but the enumerated values and the
// partial indexes' conditions.

/**
 * Ids (UUIDv7 strings from the caller) compared byte by byte, whatever the database's collation: pages
 * and cursors then order exactly as in SQLite (BINARY), and comparisons are memcmp, not strcoll.
 */
const id = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

/** Text ordered byte by byte as well, for a key column whose order must match SQLite's. */
const binaryText = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

/** All instants are integer milliseconds since the epoch, UTC (int8, read back as a JS number). */
const instant = (name: string) => bigint(name, { mode: 'number' });

/**
 * Output tails are what a child printed: text columns refuse NUL, which binary output may hold, so they
 * are stored as their UTF-8 bytes and come back as the same string.
 */
const utf8Bytes = customType<{ data: string; driverData: Buffer }>({
  dataType: () => 'bytea',
  toDriver: (value) => Buffer.from(value, 'utf8'),
  fromDriver: (value) => value.toString('utf8'),
});

export const jobs = pgTable(
  'jobs',
  {
    id: id('id').primaryKey(),
    name: text('name').notNull(),
    state: text('state', { enum: JOB_STATE_VALUES }).notNull(),
    /** The whole JobDefinition as JSON text, so the table stays stable while the definition grows. */
    definition: text('definition').notNull(),
    /** A copy of the definition's labels, for containment filters (`labels @> '{"team":"ops"}'`). */
    labels: jsonb('labels').$type<Record<string, string>>().notNull(),
    owner: text('owner').notNull(),
    version: integer('version').notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
    deletedAt: instant('deleted_at'),
    nextRunAt: instant('next_run_at'),
    /** Whether the definition sets a dead-man's switch (alerts.expectSuccessEveryMs), written with it. */
    expectsSuccess: boolean('expects_success').notNull().default(false),
    /** Whether the definition holds a secret value, written with it. */
    holdsSecrets: boolean('holds_secrets').notNull().default(false),
  },
  (t) => [
    // Soft-deleted jobs leave the index, which frees their name.
    uniqueIndex('jobs_live_name_unique')
      .on(t.name)
      .where(sql`deleted_at IS NULL`),
    // Cancelled jobs are still found by name for their history (the newest of that name). Only they: a live
    // job is found through the unique index above, and a create then writes one name index, not two.
    index('jobs_cancelled_name_idx')
      .on(t.name, t.id)
      .where(sql`deleted_at IS NOT NULL`),
    // Only jobs that can fire are indexed; queries must repeat this WHERE literally to use it.
    index('jobs_due_idx')
      .on(t.nextRunAt, t.id)
      .where(sql`state = 'active' AND deleted_at IS NULL AND next_run_at IS NOT NULL`),
    // Counting a state's jobs walks its index, not the table (daemon.status, the metrics), and listing them
    // walks it in id order (the cursor's). On id, not state:
    // SQLite, without statistics, took an index on state for the best way to the due jobs (state = 'active').
    index('jobs_active_idx').on(t.id).where(jobInState('active')),
    index('jobs_paused_idx').on(t.id).where(jobInState('paused')),
    // By when they were cancelled: retention's purge reads the oldest.
    index('jobs_cancelled_idx').on(t.deletedAt).where(jobInState('cancelled')),
    // Listing cancelled jobs walks these in id order, as the two above serve their states' listings.
    index('jobs_cancelled_id_idx').on(t.id).where(jobInState('cancelled')),
    // An owner's jobs of one state in id order: a listing by owner reads one range of it per state.
    index('jobs_owner_state_idx').on(t.owner, t.state, t.id),
    // Listing done jobs reads these, not every active job; a create with a next instant does not enter it.
    index('jobs_active_without_next_run_idx').on(t.id).where(ACTIVE_WITHOUT_NEXT_RUN),
    // The overdue watch's jobs: those whose definition sets a dead-man's switch.
    index('jobs_expect_success_idx').on(t.id).where(EXPECTS_SUCCESS),
    // The jobs holding secret values: what a start checks the key file against, and a rotation re-seals.
    index('jobs_secret_values_idx').on(t.id).where(HOLDS_SECRETS),
    check('jobs_state_check', sql`state IN (${inList(JOB_STATE_VALUES)})`),
    check('jobs_cancelled_is_deleted_check', sql`(state = 'cancelled') = (deleted_at IS NOT NULL)`),
  ],
);

export const runs = pgTable(
  'runs',
  {
    id: id('id').primaryKey(),
    jobId: id('job_id')
      .notNull()
      .references(() => jobs.id),
    scheduledFor: instant('scheduled_for').notNull(),
    attempt: integer('attempt').notNull(),
    trigger: text('trigger', { enum: RUN_TRIGGER_VALUES }).notNull(),
    state: text('state', { enum: RUN_STATE_VALUES }).notNull(),
    node: text('node').notNull(),
    fence: bigint('fence', { mode: 'number' }).notNull(),
    createdAt: instant('created_at').notNull(),
    startedAt: instant('started_at'),
    finishedAt: instant('finished_at'),
    pid: integer('pid'),
    exitCode: integer('exit_code'),
    httpStatus: integer('http_status'),
    signal: text('signal'),
    error: text('error'),
    stdoutTail: utf8Bytes('stdout_tail')
      .notNull()
      .default(sql`''::bytea`),
    stderrTail: utf8Bytes('stderr_tail')
      .notNull()
      .default(sql`''::bytea`),
    /** Bytes a command wrote to each stream in all; null for HTTP runs and runs from before the count. */
    stdoutBytes: bigint('stdout_bytes', { mode: 'number' }),
    stderrBytes: bigint('stderr_bytes', { mode: 'number' }),
    /** JSON object of an HTTP response's headers, as text (read back as it was written). */
    responseHeaders: text('response_headers'),
    /** The attempt that retries this one. */
    retriedBy: id('retried_by'),
    /** When a scheduled run may start: its instant, or later for a retry after backoff. */
    dueAt: instant('due_at').notNull(),
    /** The node of a `--placement every-host` run, part of its key; '' for one run per instant in the cluster. */
    host: text('host').notNull().default(''),
  },
  (t) => [
    // The key that keeps two daemons from firing the same instant twice.
    uniqueIndex('runs_instant_unique').on(t.jobId, t.scheduledFor, t.attempt, t.host),
    index('runs_job_history_idx').on(t.jobId, t.id),
    index('runs_unfinished_idx')
      .on(t.state)
      .where(sql`state IN ('scheduled', 'running')`),
    // A fire's overlap rule reads its job's runs in flight: found by job, not among every run in flight.
    index('runs_job_in_flight_idx')
      .on(t.jobId, t.host)
      .where(sql`state IN ('scheduled', 'running')`),
    // Retention deletes finished runs oldest first.
    index('runs_finished_idx')
      .on(t.finishedAt)
      .where(sql`finished_at IS NOT NULL`),
    // Waiting runs (retries after backoff) by when they may start; queries repeat this WHERE literally.
    index('runs_waiting_due_idx')
      .on(t.dueAt, t.id)
      .where(sql`state = 'scheduled'`),
    check('runs_state_check', sql`state IN (${inList(RUN_STATE_VALUES)})`),
    check('runs_trigger_check', sql`"trigger" IN (${inList(RUN_TRIGGER_VALUES)})`),
  ],
);

export const auditLog = pgTable(
  'audit_log',
  {
    id: id('id').primaryKey(),
    at: instant('at').notNull(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    // No foreign key: audit entries (auth failures, say) may name jobs that never existed.
    jobId: id('job_id'),
    // JSON text rather than jsonb: written and read whole, never queried inside.
    before: text('before'),
    after: text('after'),
  },
  (t) => [
    index('audit_log_job_idx').on(t.jobId, t.id),
    // Retention's pass finds the entries past their age here, where it read the whole log each hour.
    index('audit_log_at_idx').on(t.at),
  ],
);

/**
 * The ledger's record of an instant that did not simply run, as first decided: one per (job, instant, wall
 * time). The primary key's (job_id, scheduled_for) prefix serves a job's scans by instant, either way.
 */
export const occurrences = pgTable(
  'occurrences',
  {
    jobId: id('job_id')
      .notNull()
      .references(() => jobs.id),
    scheduledFor: instant('scheduled_for').notNull(),
    /** The local wall time the instant stood for, or '' when it is just scheduled_for: part of the key, so never NULL. */
    wall: binaryText('wall').notNull().default(''),
    outcome: text('outcome', { enum: OCCURRENCE_OUTCOME_VALUES }).notNull(),
    reason: text('reason').notNull(),
    node: text('node').notNull(),
    /**
     * The node an every-host entry belongs to (each node decides such an instant for itself), '' for an
     * instant decided once for the cluster: part of the key, so never NULL.
     */
    host: binaryText('host').notNull().default(''),
    decidedAt: instant('decided_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'occurrences_pk', columns: [t.jobId, t.scheduledFor, t.wall, t.host] }),
    // Retention deletes records oldest first.
    index('occurrences_decided_idx').on(t.decidedAt),
    check('occurrences_outcome_check', sql`outcome IN (${inList(OCCURRENCE_OUTCOME_VALUES)})`),
  ],
);

/**
 * The `after`/`afterAll` links of live jobs, copied from their definitions by the store in the transaction
 * that writes the job, so dependents are found by index rather than by reading every definition.
 */
export const jobDependencies = pgTable(
  'job_dependencies',
  {
    jobId: id('job_id')
      .notNull()
      .references(() => jobs.id),
    // No foreign key: an upstream job may be cancelled and purged while its dependents live on.
    upstreamId: id('upstream_id').notNull(),
    on: text('on', { enum: DEPENDENCY_ON_VALUES }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'job_dependencies_pk', columns: [t.jobId, t.upstreamId, t.on] }),
    index('job_dependencies_upstream_idx').on(t.upstreamId),
    check('job_dependencies_on_check', sql`"on" IN (${inList(DEPENDENCY_ON_VALUES)})`),
  ],
);

/** Answers already given to requests that carried an idempotency key, kept for replays. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    key: text('key').primaryKey(),
    method: text('method').notNull(),
    fingerprint: text('fingerprint').notNull(),
    response: text('response').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('idempotency_keys_created_idx').on(t.createdAt)],
);

/** Small named values, such as the fence epoch. */
export const meta = pgTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/**
 * Notifications, one row per message to one target, written before it is sent (in the transaction of the
 * outcome that causes it) and settled after: a restart finds what is still pending.
 */
export const deliveries = pgTable(
  'deliveries',
  {
    id: id('id').primaryKey(),
    // No foreign key: a cancelled job's history may be purged while its deliveries are still shown.
    jobId: id('job_id').notNull(),
    runId: id('run_id'),
    kind: text('kind', { enum: DELIVERY_KIND_VALUES }).notNull(),
    target: text('target').notNull(),
    /** One message per (what happened, target), whichever daemon or attempt writes it. */
    dedupKey: text('dedup_key').notNull(),
    state: text('state', { enum: DELIVERY_STATE_VALUES }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    dueAt: instant('due_at').notNull(),
    createdAt: instant('created_at').notNull(),
    finishedAt: instant('finished_at'),
    answer: text('answer'),
    lastError: text('last_error'),
    detail: text('detail').notNull().default(''),
  },
  (t) => [
    uniqueIndex('deliveries_dedup_unique').on(t.dedupKey),
    index('deliveries_job_idx').on(t.jobId, t.id),
    index('deliveries_pending_idx')
      .on(t.dueAt, t.id)
      .where(sql`state = 'pending'`),
    check('deliveries_state_check', sql`state IN (${inList(DELIVERY_STATE_VALUES)})`),
    check('deliveries_kind_check', sql`kind IN (${inList(DELIVERY_KIND_VALUES)})`),
  ],
);

/** Jobs whose dead-man's switch has tripped, and since when: stored so a restart does not notify again. */
export const overdueJobs = pgTable('overdue_jobs', {
  jobId: id('job_id').primaryKey(),
  since: instant('since').notNull(),
});

/**
 * The outbox: job and run events, each written in the transaction of the change it reports (a run's
 * output in batches), read back in id order by `sched watch --since` and by every node of the federation.
 */
export const events = pgTable(
  'events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    type: text('type').notNull(),
    node: text('node').notNull(),
    at: instant('at').notNull(),
    // No foreign key: events are pruned on their own, and may outlive the runs they name.
    jobId: id('job_id').notNull(),
    runId: id('run_id'),
    /** The payload as the daemon publishes it, as JSON text (escaped, so output holding NUL fits). */
    data: text('data').notNull(),
  },
  // A running run's output so far, for a follower on another node.
  (t) => [index('events_run_idx').on(t.runId, t.id)],
);

/**
 * API tokens: only the SHA-256 hash of each token is kept. A revoked token stays (its name in the audit
 * log still means something) and frees its name for a new one.
 */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: id('id').primaryKey(),
    name: text('name').notNull(),
    hash: text('hash').notNull(),
    role: text('role', { enum: API_TOKEN_ROLE_VALUES }).notNull(),
    owner: text('owner').notNull(),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at'),
    lastUsedAt: instant('last_used_at'),
    revokedAt: instant('revoked_at'),
    createdBy: text('created_by').notNull(),
  },
  (t) => [
    uniqueIndex('api_tokens_hash_unique').on(t.hash),
    uniqueIndex('api_tokens_live_name_unique')
      .on(t.name)
      .where(sql`revoked_at IS NULL`),
    check('api_tokens_role_check', sql`role IN (${inList(API_TOKEN_ROLE_VALUES)})`),
  ],
);

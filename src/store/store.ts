import type { Job, JobDefinition, JobState } from '../core/job.js';
import type { Run, RunOutcome, RunState, RunSummary, RunTrigger } from '../core/run.js';

export interface Page<T> {
  items: T[];
  /** Pass back as `cursor` to get the next page; null when this is the last page. */
  nextCursor: string | null;
}

export interface JobQuery {
  limit: number;
  cursor?: string;
  /** Default: live jobs (active and paused). */
  states?: JobState[];
  /** Every given label must match exactly. */
  labels?: Record<string, string>;
}

export interface RunQuery {
  limit: number;
  cursor?: string;
  jobId?: string;
  states?: RunState[];
  /** Only runs of jobs carrying every one of these labels. */
  labels?: Record<string, string>;
}

export interface NewJob {
  id: string;
  definition: JobDefinition;
  owner: string;
  now: number;
  nextRunAt: number | null;
}

export interface JobChange {
  definition?: JobDefinition;
  state?: JobState;
  nextRunAt?: number | null;
}

export interface NewRun {
  id: string;
  jobId: string;
  scheduledFor: number;
  attempt: number;
  trigger: RunTrigger;
  node: string;
  fence: number;
  now: number;
  /**
   * `running` when the daemon starts it at once (it is marked running before the process is spawned,
   * so a crash can never make it run twice); `scheduled` while it waits, e.g. a retry after backoff.
   */
  state: 'scheduled' | 'running';
  /** When a waiting run may start. */
  dueAt: number;
}

/** Stored with the result of a request that carried an idempotency key, in the same transaction. */
export interface IdempotencyClaim {
  key: string;
  method: string;
  fingerprint: string;
  createdAt: number;
  /** A record of this key created before this instant has expired and is replaced. */
  expiredBefore: number;
}

export interface IdempotencyRecord {
  key: string;
  method: string;
  fingerprint: string;
  createdAt: number;
  response: unknown;
}

export interface FinishedRun {
  run: Run;
  /** The next attempt, when one was asked for; it waits in `scheduled` until its due time. */
  retry: Run | null;
}

export interface Fire {
  run: NewRun;
  /**
   * The job's `nextRunAt` the scheduler saw. The fire only happens if it is still the stored value
   * (compare-and-set), so a job changed or fired meanwhile is never fired twice.
   */
  expectedNextRunAt: number;
  /** What `nextRunAt` becomes in the same transaction; null when the schedule is exhausted. */
  nextRunAt: number | null;
}

export interface AuditEntry {
  id: string;
  at: number;
  actor: string;
  action: string;
  jobId: string | null;
  before: unknown;
  after: unknown;
}

/** Who did it and when; the store adds the job and its before/after images. */
export type AuditStamp = Pick<AuditEntry, 'id' | 'at' | 'actor' | 'action'>;

export interface StoreCapabilities {
  /** Can tell other processes about changes (LISTEN/NOTIFY). */
  notify: boolean;
}

/**
 * The scheduler's one storage port. Methods are named for what scheduling needs, not for tables;
 * adapters keep their schemas and connections to themselves. Every method that changes a job also
 * writes its audit entry in the same transaction.
 */
export interface Store {
  readonly capabilities: StoreCapabilities;

  /** Throws NAME_TAKEN; with an idempotency claim whose key is taken, IDEMPOTENCY_MISMATCH (details.keyTaken). */
  createJob(job: NewJob, audit: AuditStamp, idempotency?: IdempotencyClaim): Promise<Job>;
  /**
   * A job by id (any state) or by name (live jobs only; with `includeCancelledNames`, else the newest
   * cancelled job of that name, so a cancelled job's history stays reachable by name).
   */
  findJob(ref: string, options?: { includeCancelledNames?: boolean }): Promise<Job | null>;
  listJobs(query: JobQuery): Promise<Page<Job>>;
  /**
   * Changes a job if its version is still `expectedVersion`; bumps the version.
   * Throws VERSION_CONFLICT otherwise, NAME_TAKEN if a renamed job collides.
   */
  updateJob(id: string, expectedVersion: number, change: JobChange, audit: AuditStamp): Promise<Job>;
  /** Soft delete: the job stops firing, frees its name, and its history stays. */
  cancelJob(id: string, expectedVersion: number, now: number, audit: AuditStamp): Promise<Job>;

  countJobs(state: JobState): Promise<number>;
  /** Live active jobs due at or before `until`, earliest first (served by the due-time index). */
  dueJobs(until: number, limit: number): Promise<Job[]>;
  /** Inserts the run and advances the job's `nextRunAt` in one transaction; null if the CAS failed. */
  recordFire(fire: Fire): Promise<Run | null>;
  /** A run that does not advance the schedule (manual trigger). Unique-key conflicts throw. */
  insertRun(run: NewRun, idempotency?: IdempotencyClaim): Promise<Run>;
  findIdempotencyRecord(key: string): Promise<IdempotencyRecord | null>;
  /** Moves a waiting run to `running` if it is still `scheduled`; false when something else took it. */
  claimRun(runId: string, startedAt: number): Promise<boolean>;
  setRunPid(runId: string, pid: number): Promise<void>;
  /** Records how a run ended and, in the same transaction, the attempt that retries it. */
  finishRun(runId: string, outcome: RunOutcome, retry?: NewRun): Promise<FinishedRun>;
  /** Adds a new attempt after a final run that no attempt retries yet (`sched retry`). */
  retryRun(runId: string, retry: NewRun): Promise<Run>;
  /** Runs left `running`: after a crash, their outcome is unknown. */
  listRunningRuns(): Promise<RunSummary[]>;
  /** Waiting runs due at or before `until`, earliest first. */
  dueRuns(until: number, limit: number): Promise<Run[]>;
  findRun(id: string): Promise<Run | null>;
  listRuns(query: RunQuery): Promise<Page<RunSummary>>;

  appendAudit(entry: AuditEntry): Promise<void>;
  listAudit(query: { limit: number; cursor?: string; jobId?: string }): Promise<Page<AuditEntry>>;

  /** Deletes up to `limit` finished runs in `states` that finished before `before`; returns how many. */
  pruneRunsFinishedBefore(states: RunState[], before: number, limit: number): Promise<number>;
  /** Deletes up to `limit` of the oldest finished runs of jobs that keep more than `keep`; returns how many. */
  pruneRunsBeyond(keep: number, limit: number): Promise<number>;
  /** Deletes up to `limit` audit entries older than `before`. */
  pruneAudit(before: number, limit: number): Promise<number>;
  /** Deletes up to `limit` jobs cancelled before `before` whose runs are all gone. */
  purgeCancelledJobs(before: number, limit: number): Promise<number>;
  /** A cheap round trip that proves the store can still be read and written; throws when it cannot. */
  ping(): Promise<void>;
  /** A number that grows every time a daemon opens this store: the fencing token of its runs. */
  nextFenceEpoch(): Promise<number>;
  close(): Promise<void>;
}

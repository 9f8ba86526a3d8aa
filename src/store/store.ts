import type { ApiToken } from '../core/access/api-token.js';
import type { Job, JobDefinition, JobState } from '../core/job.js';
import { JOB_AND_RUN_EVENT_TYPES } from '../core/job-run-event-types.js';
import type { LedgerEntry } from '../core/ledger/entry.js';
import type { Delivery, DeliveryAttempt, DeliveryState, NewDelivery } from '../core/notify/delivery.js';
import type { Run, RunOutcome, RunState, RunSummary, RunTrigger } from '../core/run.js';
import type { ConcurrencyPolicy } from '../core/policy/overlap.js';

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
  /** Only jobs this user owns. */
  owner?: string;
  /** Only jobs with a dead-man's switch (`--expect-success-every`), found without reading every job. */
  expectingSuccess?: boolean;
  /** Only jobs whose definition holds a secret value (env or header values, a payload), from an index. */
  holdingSecrets?: boolean;
  /**
   * Only jobs with no next instant: among active ones, a one-shot job that has fired (done) or one that runs
   * only after others; an index holds those, so done jobs are found without reading every active job.
   */
  withoutNextRun?: boolean;
}

export interface RunQuery {
  limit: number;
  cursor?: string;
  jobId?: string;
  states?: RunState[];
  /** Only runs of jobs carrying every one of these labels. */
  labels?: Record<string, string>;
  /** Only runs of jobs this user owns. */
  owner?: string;
  /** Only runs whose time (when they started; one not started yet, when it is due) is at or after this. */
  since?: number;
  /** Only runs whose time is at or before this. */
  until?: number;
}

export interface NewJob {
  id: string;
  definition: JobDefinition;
  owner: string;
  now: number;
  nextRunAt: number | null;
  /** Default `active`; a job created `paused` (with a null nextRunAt) never fires before it is resumed. */
  state?: 'active' | 'paused';
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
  /** `--placement every-host`: the node whose run of the instant this is (part of the run's key); default ''. */
  host?: string;
  /**
   * insertRun of a run asked to start (`running`) that must not overlap its job's running run: under the
   * job's row lock, it is stored `running` only while no other run of the job (of its host) runs anywhere,
   * else `scheduled`, to be claimed alone when that one ends.
   */
  alone?: boolean;
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

/** How a run ended, with what finishRun writes beside it: the attempt that retries it, its notifications. */
export interface RunEnd {
  runId: string;
  outcome: RunOutcome;
  /** When it started, for a run whose start stored only its event (it has no pid; see RunStart). */
  startedAt?: number;
  retry?: NewRun;
  deliveries?: NewDelivery[];
}

export interface Fire {
  /** The job these runs belong to. */
  jobId: string;
  /**
   * The runs of the instant (and of caught-up instants); none when the instant is only recorded (skipped for
   * overlap, dropped by the misfire policy).
   */
  runs: NewRun[];
  /** Ledger records written in the same transaction. */
  occurrences: NewOccurrence[];
  /**
   * The job's `nextRunAt` the scheduler saw. The fire only happens if it is still the stored value
   * (compare-and-set), so a job changed or fired meanwhile is never fired twice.
   */
  expectedNextRunAt: number;
  /** What `nextRunAt` becomes in the same transaction; null when the schedule is exhausted. */
  nextRunAt: number | null;
  /**
   * In a federation: the shard map the node fired from. The fire only happens while that map is still the
   * one in force; otherwise it throws FENCED and writes nothing, so a node with an outdated map cannot fire
   * an instant its shard's new owner fires too.
   */
  fence?: { term: number; publishedAt: number };
  /**
   * The job's `--concurrency`, applied to the first run (the instant that came due) in the same transaction,
   * against the job's runs of the same host not yet ended, wherever they run: the job's row lock orders it
   * against every other fire and claim of the job. A skipped instant loses its run and its `ran` record and
   * is recorded `skipped-overlap`; a queued one is written `scheduled`. Absent: the runs are written as given.
   */
  concurrency?: ConcurrencyPolicy;
  /**
   * The time the fire's runs are created (and a run written `running` started), asked once the job's row
   * lock is held: a fire that waited for a connection and the lock, across the end of the run before it,
   * would otherwise record a start before that end. Absent: each run's own `now`.
   */
  writtenAt?: () => number;
  /**
   * The job's runs that have ended on the node that fires, asked once its runs in flight are read: the
   * overlap rule counts them as over. A run's end may not be stored yet, or was stored after the read (a
   * PostgreSQL federation holds ends to write them together, and queues them under load; in peer mode the
   * end's entry may come after the fire's), and an instant skipped "because it was still running" after it
   * ended would be wrongly recorded. Absent: none has.
   */
  endedHere?: () => readonly string[];
}

/** What a fire wrote. */
export interface FiredInstant {
  runs: Run[];
  /** The ledger records written: the fire's own, with the overlap rule's decision about its instant. */
  occurrences: NewOccurrence[];
  /** `--concurrency replace`: the runs the new one replaces, each to be ended on the node running it. */
  replaced: { id: string; node: string }[];
}

/** How a claim of a waiting run that must run alone came out. */
export type AloneClaim = 'claimed' | 'busy' | 'gone';

export interface AuditEntry {
  id: string;
  at: number;
  actor: string;
  action: string;
  jobId: string | null;
  before: unknown;
  after: unknown;
}

/** A token to store: its SHA-256 hash (hex) in place of the token. */
export type NewApiToken = Omit<ApiToken, 'lastUsedAt' | 'revokedAt'> & { hash: string };

/** Who did it and when; the store adds the job and its before/after images. */
export type AuditStamp = Pick<AuditEntry, 'id' | 'at' | 'actor' | 'action'>;

/**
 * A ledger record of an instant that did not simply run: written once per (job, instant, wall time, host),
 * `host` being set only by an every-host job's node for its own decision.
 */
export type NewOccurrence = Omit<LedgerEntry, 'runIds' | 'finalState' | 'jobName'>;

export interface OccurrenceQuery {
  jobId: string;
  /** Only instants at or after this. */
  from?: number;
  /** Only instants at or before this. */
  to?: number;
  /** Newest first (`desc`, the default) or oldest first. */
  order?: 'asc' | 'desc';
  limit: number;
}

/** One `--after`/`--after-all` link of a live job, by id: `job` runs after `upstream`. */
export interface DependencyEdge {
  job: string;
  upstream: string;
  /** `success`, `failure`, `always` for `--after`; `all` for `--after-all`. */
  on: 'success' | 'failure' | 'always' | 'all';
}

export interface DeliveryQuery {
  limit: number;
  jobId?: string;
  states?: DeliveryState[];
}

/** A job's dead-man's switch tripping: stored once, with its ledger note and its notifications. */
export interface OverdueMark {
  jobId: string;
  since: number;
  note: NewOccurrence;
  deliveries: NewDelivery[];
}

/** The job and run events the store writes with the changes they report (and a running run's output, in batches). */
export const STORED_EVENT_TYPES = JOB_AND_RUN_EVENT_TYPES;
export type StoredEventType = (typeof STORED_EVENT_TYPES)[number];

/** An event as the outbox keeps it: numbered in the order it was written, and marked with its node. */
export interface StoredEvent {
  id: number;
  type: StoredEventType;
  node: string;
  at: number;
  jobId: string;
  runId: string | null;
  /** The payload as the daemon publishes it. */
  data: unknown;
}

/** A batch of a running run's output, stored so a follower on another node can print it. */
export interface RunOutputBatch {
  runId: string;
  jobId: string;
  stream: 'stdout' | 'stderr';
  data: string;
  /** Numbers the run's batches from 1, in order. */
  seq: number;
  at: number;
}

/**
 * A run's process is up (or its HTTP request sent): its pid, when it has one, and the event that says so.
 * A start without a pid stores only the event; its instant is stored with the run's end (RunEnd.startedAt).
 */
export interface RunStart {
  runId: string;
  jobId: string;
  pid: number | null;
  at: number;
}

export interface StoreCapabilities {
  /** Can tell other processes about changes (LISTEN/NOTIFY). */
  notify: boolean;
}

/**
 * The scheduler's one storage port. Methods are named for what scheduling needs, not for tables;
 * adapters keep their schemas and connections to themselves. Every method that changes a job also
 * writes its audit entry in the same transaction.
 */
/** What another daemon wrote, as the store announces it: a job, a run made to wait, or possibly anything. */
export type StoreChange =
  | { kind: 'job'; id: string }
  | { kind: 'waiting-run'; id: string }
  /** `sched kill` asked on another node for a run this node may be running. */
  | { kind: 'kill'; runId: string; reason: string }
  /** The announcements were cut off for a while (a lost connection): reload what you rely on. */
  | { kind: 'missed' };

/** What the outbox announces: an event was stored (its id), or announcements may have been missed. */
export type EventAnnouncement = { kind: 'event'; id: number } | { kind: 'missed' };

/** A page of the outbox: the ids above `after` (at most `limit`), and those among `ids` asked for again. */
export interface EventsQuery {
  after: number;
  ids?: number[];
  limit: number;
}

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
  /**
   * Writes the job's definition as given, if its version is still `job.version`, without a new version, an
   * audit entry or an event: for a definition that means the same, such as its secrets sealed under another
   * key. Cancelled jobs too. False when the version moved on (the caller reads the job again).
   */
  rewriteDefinition(job: Job): Promise<boolean>;
  /** Soft delete: the job stops firing, frees its name, and its history stays. */
  cancelJob(id: string, expectedVersion: number, now: number, audit: AuditStamp): Promise<Job>;

  countJobs(state: JobState): Promise<number>;
  /** Live active jobs due at or before `until`, earliest first (served by the due-time index). */
  dueJobs(until: number, limit: number): Promise<Job[]>;
  /**
   * Inserts the runs and ledger records and advances the job's `nextRunAt` in one transaction; null if the
   * compare-and-set failed or an instant's run already exists (nothing is written then).
   */
  recordFire(fire: Fire): Promise<FiredInstant | null>;
  /**
   * Several fires of different jobs (those due together) in one transaction, with one statement per kind of
   * row rather than per fire: each fire is checked and written as recordFire would, and its result is at
   * its index (null when its compare-and-set failed: that fire writes nothing, the others go on). When any
   * fire's run key is taken, or its fence refused, nothing of the batch is written and the error is thrown:
   * the caller records the fires one by one to learn which.
   */
  recordFires(fires: readonly Fire[]): Promise<(FiredInstant | null)[]>;
  /** A run that does not advance the schedule (manual trigger). Unique-key conflicts throw. */
  insertRun(run: NewRun, idempotency?: IdempotencyClaim): Promise<Run>;
  findIdempotencyRecord(key: string): Promise<IdempotencyRecord | null>;
  /**
   * Moves a waiting run to `running` if it is still `scheduled`, marked with this process's node (see
   * markEventsWith), which runs it; false when something else took it.
   */
  claimRun(runId: string, startedAt: number): Promise<boolean>;
  /**
   * Like claimRun, for a run that waits its turn (a queued or caught-up instant, a backfill): it starts
   * only while no other run of its job (of its host) is `running`, anywhere, decided under the job's row
   * lock. `busy` when one is; `gone` when the run is no longer waiting. `startedAt` is asked for once that
   * lock is held, so the start recorded follows the end of every run it waited for (a claim may wait a
   * while for a connection and the lock, and a start stamped before would seem to overlap that end).
   */
  claimRunAlone(runId: string, startedAt: () => number): Promise<AloneClaim>;
  setRunPid(runId: string, pid: number): Promise<void>;
  /**
   * Stores the run's pid (when it has one), its start as `start.at` (the spawn: after the commit that let
   * it start, so after the end of any run it waited for) and its `run:started` event, in one transaction.
   */
  recordRunStarted(start: RunStart): Promise<void>;
  /** recordRunStarted of many runs at once, in one statement where the store can; events in their order. */
  recordRunsStarted(starts: readonly RunStart[]): Promise<void>;
  /** Stores a batch of a running run's output as a `run:output` event, for followers on other nodes. */
  appendRunOutput(batch: RunOutputBatch): Promise<void>;
  /**
   * The node the events of this process's writes, and the runs it claims, are marked with (until it is
   * set, `''`, and a claimed run keeps its node): the daemon's node id, known once it has joined its cluster.
   */
  markEventsWith(node: string): void;
  /** Calls `listener` with the events this process's writes stored, once they are committed, in order. */
  onEventsStored(listener: (events: StoredEvent[]) => void): () => void;
  /**
   * Stored events with an id above `after`, and those among `ids` (ids seen missing, which a transaction
   * still open may yet commit), in id order, at most `limit` of the former. A row that cannot be read back
   * (its data is not JSON, its type unknown) is left out. The events of node `withoutDataOf` come back
   * with null data: the node that stored them has them already.
   */
  readEvents(query: EventsQuery & { withoutDataOf?: string }): Promise<StoredEvent[]>;
  /**
   * The ids of the events `readEvents` would return, data unread: what follows the outbox when no one
   * wants the events themselves costs an index scan, not the rows.
   */
  readEventIds(query: EventsQuery): Promise<number[]>;
  /** The output batches stored so far of a run (running on another node), in order. */
  readRunOutput(runId: string): Promise<StoredEvent[]>;
  /** The highest event id stored, 0 when none is. */
  latestEventId(): Promise<number>;
  /** Deletes up to `limit` of the oldest events written before `before`; returns how many. */
  pruneEvents(before: number, limit: number): Promise<number>;
  /**
   * Deletes up to `limit` settled notification deliveries (delivered, failed, suppressed) that ended
   * before `before`; a pending one is never deleted. Returns how many.
   */
  pruneDeliveries(before: number, limit: number): Promise<number>;
  /**
   * Calls `onAnnounce` with the id of every event any process stores, from commit, until the returned
   * function is called; null when the store cannot tell (SQLite: this daemon is the only writer).
   */
  watchEvents(
    onAnnounce: (announcement: EventAnnouncement) => void,
    onError: (error: Error) => void,
  ): Promise<(() => Promise<void>) | null>;
  /**
   * Records how a run ended and, in the same transaction, the attempt that retries it and the notifications
   * it causes (a delivery whose key is taken is dropped).
   */
  finishRun(
    runId: string,
    outcome: RunOutcome,
    retry?: NewRun,
    deliveries?: NewDelivery[],
  ): Promise<FinishedRun>;
  /**
   * Records the ends of many runs in one transaction, each as finishRun records one, with one statement per
   * step for all of them where the store can. An end whose run is missing or already ended (its
   * compare-and-set failed) gets null and writes nothing, neither its retry nor its notifications; any
   * other failure (a retry whose attempt is taken) rolls back every end of the batch. One end per run.
   */
  finishRuns(ends: readonly RunEnd[]): Promise<(FinishedRun | null)[]>;
  /**
   * Ends a run that is still waiting (`scheduled`) with `outcome` (a cancellation), so it never starts; null
   * when it is not waiting any more (something started or ended it first).
   */
  cancelWaitingRun(runId: string, outcome: RunOutcome): Promise<Run | null>;
  /** Adds a new attempt after a final run that no attempt retries yet (`sched retry`). */
  retryRun(runId: string, retry: NewRun): Promise<Run>;
  /** Runs left `running`: after a crash, their outcome is unknown. */
  listRunningRuns(): Promise<RunSummary[]>;
  /** Waiting runs due at or before `until`, earliest first. */
  dueRuns(until: number, limit: number): Promise<Run[]>;
  findRun(id: string): Promise<Run | null>;
  /** Ids of the runs whose id starts with `prefix`, in id order, at most `limit` (a shortened run id). */
  findRunIdsByPrefix(prefix: string, limit: number): Promise<string[]>;
  listRuns(query: RunQuery): Promise<Page<RunSummary>>;

  appendAudit(entry: AuditEntry): Promise<void>;

  /** Stores a token by its hash; null (nothing written) when a live token already has its name. */
  createApiToken(token: NewApiToken): Promise<ApiToken | null>;
  /** Tokens not revoked (expired ones included), by name. */
  listApiTokens(): Promise<ApiToken[]>;
  /** The token with this hash, revoked or expired included (so a refusal can say which); null if none. */
  findApiTokenByHash(hash: string): Promise<ApiToken | null>;
  /** Revokes the live token of that name; null when there is none. */
  revokeApiToken(name: string, at: number): Promise<ApiToken | null>;
  /** Records that a token was used at `at` (`sched token ls` shows it). */
  touchApiToken(id: string, at: number): Promise<void>;
  listAudit(query: { limit: number; cursor?: string; jobId?: string }): Promise<Page<AuditEntry>>;

  /** Deletes up to `limit` finished runs in `states` that finished before `before`; returns how many. */
  pruneRunsFinishedBefore(states: RunState[], before: number, limit: number): Promise<number>;
  /** Deletes up to `limit` of the oldest finished runs of jobs that keep more than `keep`; returns how many. */
  pruneRunsBeyond(keep: number, limit: number): Promise<number>;
  /** Deletes up to `limit` audit entries older than `before`. */
  pruneAudit(before: number, limit: number): Promise<number>;
  /** Deletes up to `limit` jobs cancelled before `before` whose runs are all gone. */
  purgeCancelledJobs(before: number, limit: number): Promise<number>;
  /**
   * Writes ledger records for instants that did not simply run (skipped, missed, deduplicated, or ran with a
   * reason worth telling, such as a catch-up). A record for the same (job, scheduledFor, wall, host) is kept as
   * first written: the first decision about an instant stands (an every-host job's, the first on each node).
   */
  recordOccurrences(entries: NewOccurrence[]): Promise<void>;
  /** Ledger records of one job (those written with recordOccurrences), by instant; jobName is filled in. */
  listOccurrences(query: OccurrenceQuery): Promise<LedgerEntry[]>;
  /**
   * Runs of one job whose instant (`scheduledFor`) lies in the range, all attempts, ordered by instant then
   * attempt (the order applies to instants; `limit` counts runs).
   */
  listRunsByInstant(query: OccurrenceQuery): Promise<RunSummary[]>;
  /** Live jobs that run after `upstreamId` (`--after` or `--after-all`). */
  listDependents(upstreamId: string): Promise<Job[]>;
  /** Every dependency link between live jobs, for refusing cycles. */
  listDependencyEdges(): Promise<DependencyEdge[]>;
  /** Stores notifications to send; one whose dedup key is taken is dropped. Returns how many were new. */
  enqueueDeliveries(deliveries: NewDelivery[]): Promise<number>;
  /** Pending deliveries due at or before `until`, earliest first. */
  dueDeliveries(until: number, limit: number): Promise<Delivery[]>;
  /**
   * Takes a pending delivery to send it: moves its due time from `dueAt` (as read) to `leaseUntil`, so no
   * other daemon on the store sends it meanwhile, and one that dies sending it leaves it to be sent again
   * once the lease is up. False when another took it first or it is no longer pending.
   */
  claimDelivery(id: string, dueAt: number, leaseUntil: number): Promise<boolean>;
  /** What an attempt to send a pending delivery came to; false if it was no longer pending. */
  recordDeliveryAttempt(id: string, attempt: DeliveryAttempt): Promise<boolean>;
  /** Newest first. */
  listDeliveries(query: DeliveryQuery): Promise<Delivery[]>;
  /** Deliveries of one job to one target created at or after `since` (summaries not counted), in `states`. */
  countDeliveries(jobId: string, target: string, since: number, states: DeliveryState[]): Promise<number>;
  /** Marks a job overdue with its note and deliveries, once: false (nothing written) if it already is. */
  markOverdue(mark: OverdueMark): Promise<boolean>;
  /** Clears a job's overdue mark and stores the deliveries that tell so; the mark's `since`, or null if there was none. */
  clearOverdue(jobId: string, deliveries: NewDelivery[]): Promise<number | null>;
  listOverdue(): Promise<{ jobId: string; since: number }[]>;
  /** The job's most recent successful run by when it finished, or null when none succeeded. */
  latestSuccess(jobId: string): Promise<{ runId: string; finishedAt: number } | null>;
  /** A cheap round trip that proves the store can still be read and written; throws when it cannot. */
  ping(): Promise<void>;
  /**
   * Calls `onChange` with every job another process creates or changes and every run made to wait (a
   * run routed to its node, say), until the returned function is called; null when the store cannot tell
   * (SQLite: one daemon is the only writer).
   */
  watchChanges(
    onChange: (change: StoreChange) => void,
    onError: (error: Error) => void,
  ): Promise<(() => Promise<void>) | null>;
  /** Tells every node watching changes to kill `runId` if it runs it; nothing where one daemon is alone. */
  relayKill(runId: string, reason: string): Promise<void>;
  /**
   * Writes a consistent copy of the whole store to `file` (a SQLite database) while it is in use; refuses
   * an existing file unless `force`. Absent where the server's own tools do it (PostgreSQL: pg_dump).
   */
  backupTo?(file: string, options: { force: boolean }): Promise<{ file: string; bytes: number }>;
  /**
   * The id of the key this store's secrets are sealed under, as the daemons that share it agreed (the
   * first one to start recorded its own); null until one has.
   */
  secretKeyId(): Promise<string | null>;
  /** Records `keyId` if the recorded id is still `expected` (null: none recorded yet); false otherwise. */
  recordSecretKeyId(keyId: string, expected: string | null): Promise<boolean>;
  /** A number that grows every time a daemon opens this store: the fencing token of its runs. */
  nextFenceEpoch(): Promise<number>;
  close(): Promise<void>;
}

import { z } from 'zod';
import { jobInputSchema, jobPatchSchema, type Job } from '../core/job.js';
import { API_TOKEN_ROLES, type ApiToken } from '../core/access/api-token.js';
import { JOB_STATUSES } from '../core/job-status.js';
import { isClusterKey } from '../core/peer/cluster-keyring.js';
import { RUN_STATES, type Run, type RunSummary } from '../core/run.js';
import type { ErrorShape } from '../core/errors.js';
import type { LedgerEntry } from '../core/ledger/entry.js';
import type { Delivery } from '../core/notify/delivery.js';
import type { OccurrenceNote } from '../core/schedule/occurrences.js';
import { tryParsePeerAddress } from '../core/peer/peer-address.js';

/**
 * Every request the daemon answers, with the zod schema of its params (checked once, at the daemon's
 * edge) and the type of its result. Adding a method here is what makes it exist on both sides.
 */
const labelsSchema = z.record(z.string(), z.string());
const idempotencyKeySchema = z.string().min(1).max(200);
/** A cluster key, checked here so a refusal never needs to quote it back. */
const clusterKeySchema = z
  .string()
  .refine(
    (text) => isClusterKey(text),
    'not a cluster key (32 bytes in base64, 44 characters, as `sched cluster keygen` prints)',
  );
const pageParams = { limit: z.number().int().min(1).max(1000).default(50), cursor: z.string().optional() };
const peerAddressSchema = z
  .string()
  .refine((text) => tryParsePeerAddress(text) !== null, 'give host:port, e.g. 10.0.0.4:7946');

export const requestSchemas = {
  'daemon.status': z.object({}),
  /** `paused`: the job is created paused, in the same write, so no instant can fire before a pause. */
  'job.add': z.object({
    input: jobInputSchema,
    idempotencyKey: idempotencyKeySchema.optional(),
    paused: z.boolean().optional(),
  }),
  'job.list': z.object({
    ...pageParams,
    /** `done` is an active one-shot job that has fired (see `jobStatus`). */
    states: z.array(z.enum(JOB_STATUSES)).optional(),
    labels: labelsSchema.optional(),
    /** Only jobs this user owns. */
    owner: z.string().min(1).optional(),
    /** Secret values (env, header values, payload) in clear: admins only, audited. Default: masked. */
    reveal: z.boolean().optional(),
  }),
  'job.get': z.object({
    ref: z.string().min(1),
    upcoming: z.number().int().min(0).max(100).default(5),
    reveal: z.boolean().optional(),
  }),
  'job.update': z.object({
    ref: z.string().min(1),
    patch: jobPatchSchema,
    ifVersion: z.number().int().optional(),
  }),
  /** `force`: cancel even though other jobs run after it (`--after`); the reply names what it strands. */
  'job.cancel': z.object({ ref: z.string().min(1), force: z.boolean().optional() }),
  'job.pause': z.object({ ref: z.string().min(1) }),
  'job.resume': z.object({ ref: z.string().min(1) }),
  'job.trigger': z.object({ ref: z.string().min(1), idempotencyKey: idempotencyKeySchema.optional() }),
  'run.list': z.object({
    ...pageParams,
    jobRef: z.string().optional(),
    states: z.array(z.enum(RUN_STATES)).optional(),
    labels: labelsSchema.optional(),
    /** Only runs of jobs this user owns. */
    owner: z.string().min(1).optional(),
    /** Epoch ms bounds, both included, on when a run started (or, not started yet, when it is due). */
    since: z.number().int().optional(),
    until: z.number().int().optional(),
  }),
  /**
   * A run by its id or a unique prefix of it; with `orJob`, a job's name or id answers its latest run.
   * A running run comes with its output so far (see Run.outputSeq).
   */
  'run.get': z.object({ id: z.string().min(1), orJob: z.boolean().default(false) }),
  'run.kill': z.object({ id: z.string().min(1) }),
  /** `now`: start a run that waits (a retry in its backoff, a queued instant) at once, as the same attempt. */
  'run.retry': z.object({ id: z.string().min(1), now: z.boolean().default(false) }),
  /**
   * A new attempt for every dead run of a job (failed, timed out or lost, no attempt after it) whose time
   * lies in [since, until]; `dryRun` only lists them.
   */
  'run.redrive': z.object({
    jobRef: z.string().min(1),
    since: z.number().int(),
    until: z.number().int().optional(),
    dryRun: z.boolean().default(false),
  }),
  'audit.list': z.object({ ...pageParams, jobRef: z.string().optional() }),
  /** What happened to the instant of a job nearest `at` (epoch ms), or to its latest one. */
  'job.why': z.object({ ref: z.string().min(1), at: z.number().int().optional() }),
  /** The occurrence ledger of a job, newest first; `cursor` is the previous page's `nextCursor`. */
  'job.occurrences': z.object({ ref: z.string().min(1), ...pageParams }),
  /** The instants of a job in [from, to]: listed (`dryRun`) or run, honouring its overlap policy. */
  'job.ping': z.object({
    ref: z.string().min(1),
    fail: z.boolean().default(false),
    message: z.string().max(1_000).optional(),
  }),
  'notify.test': z.object({ ref: z.string().min(1) }),
  'notify.list': z.object({
    jobRef: z.string().min(1).optional(),
    failed: z.boolean().default(false),
    limit: z.number().int().min(1).max(1_000).default(50),
  }),
  'job.backfill': z.object({
    ref: z.string().min(1),
    from: z.number().int(),
    to: z.number().int(),
    dryRun: z.boolean().default(false),
    max: z.number().int().min(1).max(1_000_000).default(10_000),
  }),
  /** A consistent copy of the store written to `file` (an absolute path) while the daemon runs. */
  'store.backup': z.object({ file: z.string().min(1), force: z.boolean().default(false) }),
  'daemon.stop': z.object({ graceMs: z.number().int().min(0).optional() }),
  /** Seals every stored secret under a new key, then drops the old one from the key file (admins only). */
  'key.rotate': z.object({
    /** The daemons sharing the store all read one key file (shared storage): required in a federation. */
    sharedFile: z.boolean().default(false),
  }),
  /** Nodes, coordinator and term, and shards per node, as this daemon sees the cluster. */
  'cluster.status': z.object({}),
  /**
   * Peer mode: this daemon's cluster keyring, as fingerprints (admins only). Install, use and remove act on
   * this host's ring and key file alone; a rotation makes each step on every member before the next.
   */
  'cluster.keys.list': z.object({}),
  'cluster.keys.install': z.object({ key: clusterKeySchema }),
  'cluster.keys.use': z.object({ key: clusterKeySchema }),
  'cluster.keys.remove': z.object({ key: clusterKeySchema }),
  /**
   * Peer mode: makes `member` (its peer address, a daemon started with --join) a voter, through the leader;
   * answered once the new configuration is committed (admins only).
   */
  'cluster.join': z.object({ member: peerAddressSchema }),
  /** Peer mode: removes `member` (default: this node) from the voters, as `cluster.join` adds one (admins only). */
  'cluster.leave': z.object({ member: peerAddressSchema.optional() }),
  /**
   * Starts a stream of `EventMessage`s on this connection (tagged with this request's id) until the
   * connection closes. `types` narrows it (default: all); `runId` keeps only that run's events.
   */
  'events.subscribe': z.object({
    types: z.array(z.string()).optional(),
    runId: z.string().optional(),
    /** Replay the retained events after this id first (`sched watch --since`). */
    since: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  }),
  /** A new API token (admins only); the reply holds the token itself, the one time it is ever shown. */
  'token.create': z.object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a name of letters, digits, ".", "_" and "-" (at most 64)'),
    role: z.enum(API_TOKEN_ROLES),
    /** The user the token acts as; default `token:NAME`, a user no host has (so it runs no commands). */
    owner: z.string().min(1).max(64).optional(),
    /** Lifetime; default: until revoked. */
    ttlMs: z.number().int().min(60_000).optional(),
  }),
  'token.list': z.object({}),
  'token.revoke': z.object({ name: z.string().min(1) }),
} as const;

export type Method = keyof typeof requestSchemas;
export type Params<M extends Method> = z.input<(typeof requestSchemas)[M]>;
export type ParsedParams<M extends Method> = z.output<(typeof requestSchemas)[M]>;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface DaemonStatus {
  pid: number;
  version: string;
  home: string;
  socketPath: string;
  store: string;
  node: string;
  startedAt: number;
  now: number;
  jobs: { active: number; paused: number };
  runningRuns: number;
  /**
   * Command runs with a child alive, and those waiting in the spawner for one of `max_children`'s slots
   * (they count in `runningRuns` too).
   */
  commands: { alive: number; waiting: number; maxChildren: number };
}

export type BreakerState = 'closed' | 'open' | 'half_open';

/** The circuit breaker of one HTTP origin, as `sched show` reports it. */
export interface BreakerStatus {
  origin: string;
  state: BreakerState;
  consecutiveFailures: number;
  openedAt: number | null;
  /** While open: when the next request is let through (half-open). */
  retryAt: number | null;
}

export interface JobDetail {
  job: Job;
  upcoming: number[];
  recentRuns: RunSummary[];
  /** For HTTP jobs: the breaker of the target's origin. */
  breaker: BreakerStatus | null;
  /**
   * For command jobs: whom the answering daemon starts its runs as (null for HTTP jobs, which are
   * requests the daemon makes itself). Absent when read from the local copy.
   */
  runsAs?: RunsAs | null;
  /** The job's latest notifications, newest first. */
  deliveries?: DeliveryView[];
  /** When its dead-man's switch tripped, while it is overdue; null otherwise. */
  overdueSince?: number | null;
  /** Read from the node's local copy while the store cannot be reached: says so, and that it may be stale. */
  stale?: string;
}

/**
 * A command job's user: its owner on a root daemon, else the daemon's own user. `refused` says why its runs
 * would fail instead (an owner this daemon cannot start jobs as, or one this host does not know), and `uid`
 * is then null.
 */
export interface RunsAs {
  user: string;
  uid: number | null;
  refused: string | null;
}

/** `sched ls`: a page of jobs; `stale` when read from the node's local copy (the store unreachable). */
export type JobListPage = Page<Job> & { stale?: string };

/** A notification as shown: its target without the path or query, which may hold a token. */
export type DeliveryView = Omit<Delivery, 'dedupKey'>;

export interface NotifyTestResult {
  job: { id: string; name: string };
  targets: { target: string; ok: boolean; answer: string }[];
}

/** One daemon of a federation, as the cluster's membership table and shard map show it. */
export interface ClusterNodeStatus {
  id: string;
  hostname: string;
  /** The node's metrics/health listener, `host:port`, or '' when it has none. */
  address: string;
  version: string;
  labels: Record<string, string>;
  /** Runs running on the node at its last heartbeat. */
  load: number;
  startedAt: number;
  heartbeatAt: number;
  /** Its heartbeat is recent enough for the coordinator to give it shards. */
  alive: boolean;
  /** Shards the current map gives it. */
  shards: number;
  coordinator: boolean;
  /** This is the daemon that answered. */
  self: boolean;
}

export interface ClusterStatus {
  /**
   * `single`: one daemon on its own SQLite store; `federated`: daemons sharing PostgreSQL; `peers`: daemons
   * replicating one log among themselves (Raft), with no shared database.
   */
  mode: 'single' | 'federated' | 'peers';
  /** This daemon's node id. */
  node: string;
  /** The coordinator's node id, or null while none holds the lease. */
  coordinator: string | null;
  /** The term of the shard map in force (the fencing token); 0 before any map. */
  term: number;
  mapPublishedAt: number | null;
  /** The database's clock when this answer was made; heartbeat ages are measured against it. */
  now: number;
  nodes: ClusterNodeStatus[];
  /** Shards no live node owns (only while the cluster has no live node, or a map is being made). */
  unassignedShards: number;
  /** How late this daemon's last fires were, p99 over the last minute, in ms; null before any fire. */
  firingLagMs: number | null;
  /**
   * `degraded: store unreachable for 45s, firing every-host jobs from the local copy` while this node cannot
   * reach the store (then `nodes` is empty when the membership could not be read either); absent otherwise.
   */
  degraded?: string;
  /** Peer mode: the Raft voters, the leader and its term, and how membership (SWIM) sees each member. */
  peers?: {
    voters: string[];
    /** Whether this node is a voter (false while it joins, and once it has left). */
    voting: boolean;
    leader: string | null;
    raftTerm: number;
    /**
     * `protocol`: the peer protocol version the member advertises (1 for one that advertises none, an older
     * build's); absent from a daemon of a build before it was shown.
     */
    members: { id: string; state: 'alive' | 'suspect' | 'dead'; protocol?: number }[];
  };
}

/** One key of a cluster keyring, named by its fingerprint (the key itself never leaves the daemon). */
export interface ClusterKeyView {
  /** The first 8 hex digits of the SHA-256 of the key's bytes. */
  fingerprint: string;
  /** The key this node seals what it sends with; every key listed opens what it receives. */
  primary: boolean;
}

/** `sched cluster keys list`: the ring of this host, primary first, and the file that holds it. */
export interface ClusterKeyringView {
  keyFile: string;
  keys: ClusterKeyView[];
  count: number;
  /** How many keys a ring may hold. */
  max: number;
}

/** What `sched cluster keys install|use|remove` did to this host's ring, and the ring it left. */
export interface ClusterKeyChange extends ClusterKeyringView {
  action: 'install' | 'use' | 'remove';
  /** The key acted on. */
  fingerprint: string;
  /** False when the ring already was as asked (installed already, primary already, not installed). */
  changed: boolean;
}

export interface WhyAnswer {
  job: Job;
  /** One sentence: what happened to the instant and why. */
  sentence: string;
  /** The ledger entry explained (the first of `entries`); null when nothing was recorded near the time asked about. */
  entry: LedgerEntry | null;
  /**
   * Every entry of the instant explained: more than one when the nodes of an every-host job each decided it
   * (one entry a node, with its `host`), or when a skipped wall time shares it with a run; empty when `entry`
   * is null.
   */
  entries: LedgerEntry[];
}

/** One instant of a backfill range, and what the backfill does (or would do) with it. */
export interface BackfillInstant {
  scheduledFor: number;
  /** Local wall time in the job's zone, ISO without offset. */
  wall: string;
  note: OccurrenceNote;
  /** `run`: a run is (or would be) created; `exists`: the instant already has a run; `dst-skipped`/`deduplicated`: the DST policy passes it over. */
  action: 'run' | 'exists' | 'dst-skipped' | 'deduplicated';
  runId: string | null;
}

export interface BackfillResult {
  job: Job;
  dryRun: boolean;
  from: number;
  to: number;
  instants: BackfillInstant[];
  /** Runs created (0 on a dry run). */
  created: number;
  /** How they run: all at once (`--concurrency allow`) or one after another in order. */
  order: 'parallel' | 'serial';
}

/** What `sched retry --job J --since T` did, or would do (`dryRun`). */
export interface RedriveResult {
  job: { id: string; name: string };
  dryRun: boolean;
  since: number;
  until: number | null;
  /** Each dead run, with the new attempt that redrives it (null on a dry run). */
  redriven: { dead: RunSummary; retry: Run | null }[];
  /** Runs of the range that ended without success but that an attempt already follows (say, an earlier redrive). */
  skipped: { run: RunSummary; retriedBy: string }[];
  /** More dead runs than one redrive takes were found: running it again takes the next ones. */
  more: boolean;
}

/** A cancelled job, and the jobs that ran after it (`--after`, `--after-all`) and now never will. */
export interface CancelledJob extends Job {
  stranded: { id: string; name: string }[];
}

export interface BackupResult {
  /** The absolute path of the copy. */
  file: string;
  bytes: number;
  takenAt: number;
}

/** What `sched cluster join|leave` did: the voters in force once the change was committed. */
export interface VotersChanged {
  action: 'join' | 'leave';
  member: string;
  voters: string[];
  /** The leader that made the change. */
  leader: string;
}

/**
 * What `sched key rotate` did: the new key's id, the ids dropped, and the jobs holding secrets gone through
 * and re-sealed.
 */
export interface KeyRotationResult {
  key: string;
  retired: string[];
  jobs: number;
  resealed: number;
}

export interface AuditRecord {
  id: string;
  at: number;
  actor: string;
  action: string;
  jobId: string | null;
  before: unknown;
  after: unknown;
}

export interface Results {
  'daemon.status': DaemonStatus;
  'job.add': Job;
  'job.list': JobListPage;
  'job.get': JobDetail;
  'job.update': Job;
  'job.cancel': CancelledJob;
  'job.pause': Job;
  'job.resume': Job;
  'job.trigger': Run;
  'run.list': Page<RunSummary>;
  'run.get': Run;
  'run.kill': Run;
  'run.retry': Run;
  'run.redrive': RedriveResult;
  'audit.list': Page<AuditRecord>;
  'job.why': WhyAnswer;
  'cluster.status': ClusterStatus;
  'cluster.keys.list': ClusterKeyringView;
  'cluster.keys.install': ClusterKeyChange;
  'cluster.keys.use': ClusterKeyChange;
  'cluster.keys.remove': ClusterKeyChange;
  'cluster.join': VotersChanged;
  'cluster.leave': VotersChanged;
  'job.occurrences': Page<LedgerEntry>;
  'job.backfill': BackfillResult;
  'job.ping': Run;
  'notify.test': NotifyTestResult;
  'notify.list': { items: DeliveryView[] };
  'daemon.stop': { stopping: true; pid: number };
  'key.rotate': KeyRotationResult;
  'store.backup': BackupResult;
  /** `shared`: other nodes share the store, so events come from several nodes. */
  'events.subscribe': { subscribed: true; types: string[] | null; shared?: boolean };
  'token.create': CreatedToken;
  'token.list': { items: ApiToken[] };
  'token.revoke': ApiToken;
}

/** A token just created: `token` is shown this once and stored only as its hash. */
export interface CreatedToken extends ApiToken {
  token: string;
}

/**
 * What the daemon publishes: `noun:verb` types with a payload each. `run:output` carries live output of
 * command runs; `stream:dropped` is the last message a subscriber gets when it read too slowly.
 */
export interface StreamEvents {
  'daemon:started': { pid: number; at: number; metricsAddress: string | null };
  'daemon:stopping': { at: number; reason: string };
  'job:created': Job;
  'job:updated': Job;
  'job:cancelled': Job;
  'run:fired': Run;
  'run:started': { runId: string; jobId: string; pid: number | null; at: number };
  /** `seq` numbers a run's chunks from 1; a run read while running says which it holds (`outputSeq`). */
  'run:output': { runId: string; stream: 'stdout' | 'stderr'; data: string; seq: number };
  'run:finished': Run;
  'run:lost': Run;
  'run:retry-scheduled': Run;
  'run:dead': Run;
  /** An instant that did not run (skipped, missed, passed over by a clock change), as the ledger recorded it. */
  'occurrence:recorded': LedgerEntry;
  'job:overdue': { jobId: string; jobName: string; since: number };
  'job:recovered': { jobId: string; jobName: string; since: number; runId: string };
  'stream:dropped': { reason: string };
}

export type StreamEventType = keyof StreamEvents;

export type StreamEvent = {
  [T in StreamEventType]: {
    type: T;
    at: number;
    data: StreamEvents[T];
    /** The outbox id of a stored job or run event (`sched watch --since` resumes after it). */
    id?: number;
    /** The node the event happened on. */
    node?: string;
  };
}[StreamEventType];

export interface EventMessage {
  kind: 'event';
  /** The id of the `events.subscribe` request this stream answers. */
  subscription: number;
  event: StreamEvent;
}

export interface RequestMessage {
  kind: 'request';
  id: number;
  method: string;
  params: unknown;
}

export type ResponseMessage =
  | { kind: 'response'; id: number; ok: true; result: unknown }
  /** A malformed request is refused with the id it carried when that is a plain number or string. */
  | { kind: 'response'; id: number | string; ok: false; error: ErrorShape };

export function isMethod(name: string): name is Method {
  return Object.hasOwn(requestSchemas, name);
}

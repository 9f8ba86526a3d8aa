import { z } from 'zod';
import { stampedNow } from '../../store/sql/fire-scripts.js';
import type { ShardMap } from '../../core/cluster/shard-map.js';
import { protocolFeatures, type ProtocolFeatures } from '../../core/peer/protocol-version.js';
import { SHARD_COUNT } from '../../core/cluster/shard.js';
import type { ReplicaFile, ReplicaRows } from '../../store/sqlite/sqlite-replica.js';
import type { Fire, Store } from '../../store/store.js';

/**
 * The Store's writes, which peer mode makes through the replicated log: each is proposed as a command and
 * applied by every member to its own SQLite, in log order. The store's scripts read no clock and make no
 * id, so a command applied to equal stores leaves them equal. What a node keeps for itself (its fence
 * epoch) and what only reads stays local.
 */
export const REPLICATED_WRITES = [
  'createJob',
  'updateJob',
  'rewriteDefinition',
  'cancelJob',
  'recordFire',
  'recordFires',
  'insertRun',
  'claimRun',
  'claimRunAlone',
  'setRunPid',
  'recordRunStarted',
  'recordRunsStarted',
  'appendRunOutput',
  'pruneEvents',
  'pruneDeliveries',
  'finishRun',
  'finishRuns',
  'cancelWaitingRun',
  'retryRun',
  'appendAudit',
  'createApiToken',
  'revokeApiToken',
  'touchApiToken',
  'pruneRunsFinishedBefore',
  'pruneRunsBeyond',
  'pruneAudit',
  'purgeCancelledJobs',
  'recordOccurrences',
  'enqueueDeliveries',
  'claimDelivery',
  'recordDeliveryAttempt',
  'markOverdue',
  'clearOverdue',
  'recordSecretKeyId',
] as const satisfies readonly (keyof Store)[];

export type ReplicatedWrite = (typeof REPLICATED_WRITES)[number];

/** The Store's reads, answered from this member's copy as of the entries applied here. */
export const LOCAL_READS = [
  'findJob',
  'listJobs',
  'countJobs',
  'dueJobs',
  'findIdempotencyRecord',
  'readEvents',
  'readEventIds',
  'readRunOutput',
  'latestEventId',
  'listRunningRuns',
  'dueRuns',
  'findRun',
  'findRunIdsByPrefix',
  'listRuns',
  'listApiTokens',
  'findApiTokenByHash',
  'listAudit',
  'listOccurrences',
  'listRunsByInstant',
  'listDependents',
  'listDependencyEdges',
  'dueDeliveries',
  'listDeliveries',
  'countDeliveries',
  'listOverdue',
  'latestSuccess',
  'secretKeyId',
] as const satisfies readonly (keyof Store)[];

/** What the replicated store answers itself (see replicatedStore), neither a read nor a write of the log. */
export type OwnStoreMember =
  | 'capabilities'
  | 'markEventsWith'
  | 'onEventsStored'
  | 'watchEvents'
  | 'watchChanges'
  | 'relayKill'
  | 'ping'
  | 'backupTo'
  | 'nextFenceEpoch'
  | 'close';

/**
 * Every member of Store is a replicated write, a local read or answered by the replicated store itself: a
 * member added to Store and to none of them fails to compile here, so no write is ever left local by mistake.
 */
export type UnclassifiedStoreMember = Exclude<
  keyof Store,
  ReplicatedWrite | (typeof LOCAL_READS)[number] | OwnStoreMember
>;
export const EVERY_STORE_MEMBER_CLASSIFIED: [UnclassifiedStoreMember] extends [never] ? true : never = true;

/** Not a write: a kill every member hears in log order, and the one running the run carries out. */
export const RELAYED_KILL = 'relayKill';
/** The coordinator's new shard map: fires fenced with another are refused where they are applied. */
export const PUBLISH_MAP = 'publishMap';

/** A member's labels, host and version, which the coordinator places jobs by and `cluster status` shows. */
export const REGISTER_MEMBER = 'registerMember';

export type CommandOp = ReplicatedWrite | typeof RELAYED_KILL | typeof PUBLISH_MAP | typeof REGISTER_MEMBER;

export interface MemberRecord {
  id: string;
  hostname: string;
  version: string;
  labels: Record<string, string>;
  startedAt: number;
}

export interface StoreCommand {
  /**
   * The proposer's id for it, `${node}/${boot}/${counter}`: it finds its own entry applied by it, and a copy
   * offered again is known by it and skipped (see ProposerSessions).
   */
  id: string;
  /** When the proposer made it, on its own monotonic clock (ms): how long its id is remembered is measured on it. */
  at?: number;
  /** The node whose write it is: its events and claimed runs are marked with it. */
  node: string;
  op: CommandOp;
  /** The arguments, as JSON carries them. */
  args: unknown[];
  /** Which arguments were undefined (JSON has no undefined, and null means something else to the store). */
  absent?: number[];
}

const MAX_ARGS = 8;

/** What a log entry must be to be applied; the members are authenticated, but a bad entry must not stop one. */
export const storeCommandSchema: z.ZodType<StoreCommand> = z.object({
  id: z.string().min(1).max(200),
  at: z.int().min(0).optional(),
  node: z.string().max(300),
  op: z.enum([...REPLICATED_WRITES, RELAYED_KILL, PUBLISH_MAP, REGISTER_MEMBER]),
  args: z.array(z.unknown()).max(MAX_ARGS),
  absent: z.array(z.int().min(0).max(MAX_ARGS)).max(MAX_ARGS).optional(),
});

/**
 * The command for a write, its arguments made plain data: what the store would ask for later (a fire's
 * `writtenAt`, a claim's start, the runs its node saw end) is asked for now, at the proposer, since every
 * member must apply the same values. `understood` is what every member that applies the log understands
 * (see featuresOfAll), asked only of a fire: none of the features by default.
 */
export function commandOf(
  id: string,
  node: string,
  op: CommandOp,
  args: readonly unknown[],
  understood: () => ProtocolFeatures = () => protocolFeatures(1),
): StoreCommand {
  const plain = plainArgs(op, args, understood);
  const absent = plain.flatMap((arg, index) => (arg === undefined ? [index] : []));
  while (plain.length > 0 && plain.at(-1) === undefined) plain.pop();
  return absent.length > 0 ? { id, node, op, args: plain, absent } : { id, node, op, args: plain };
}

/** The arguments to call the store with, as the proposer gave them. */
export function argsOf(command: StoreCommand): unknown[] {
  const args = [...command.args];
  for (const index of command.absent ?? []) args[index] = undefined;
  if (command.op === 'claimRunAlone') {
    const startedAt = args[1] as number;
    args[1] = () => startedAt;
  }
  if (command.op === 'recordFire') args[0] = fireOfEntry(args[0]);
  if (command.op === 'recordFires' && Array.isArray(args[0])) args[0] = args[0].map(fireOfEntry);
  return args;
}

function plainArgs(op: CommandOp, args: readonly unknown[], understood: () => ProtocolFeatures): unknown[] {
  if (op === 'claimRunAlone') {
    const [runId, startedAt] = args as [string, () => number];
    return [runId, startedAt()];
  }
  if (op !== 'recordFire' && op !== 'recordFires') return [...args];
  const { endedRunsInFires } = understood();
  if (op === 'recordFire') return [plainFire(args[0] as Fire, endedRunsInFires)];
  return [(args[0] as readonly Fire[]).map((fire) => plainFire(fire, endedRunsInFires))];
}

/** A fire as an entry carries it: the runs of its job that ended on its node are named, not asked for. */
type PlainFire = Omit<Fire, 'writtenAt' | 'endedHere'> & { endedRuns?: string[] };

/** The most ended runs a fire names: the latest ends, which are those the entries before it may lack. */
const MAX_ENDED_RUNS = 100;

/**
 * A fire as plain data. The runs that ended on its node, which a local fire asks for once it has read the
 * runs in flight, are asked for now and named (when every member understands them): under load a run's end
 * reaches the log well after the run ended, behind the ends written before it and after this fire, and every
 * member must count the run as over alike. Without them each would skip the instant as an overlap.
 */
function plainFire(fire: Fire, namesEndedRuns: boolean): PlainFire {
  const { writtenAt: _asked, endedHere, ...plain } = stampedNow(fire);
  const named = namesEndedRuns && plain.concurrency !== undefined;
  const ended = named ? (endedHere?.() ?? []).slice(-MAX_ENDED_RUNS) : [];
  return ended.length > 0 ? { ...plain, endedRuns: [...ended] } : plain;
}

/**
 * A fire as the store takes it: the runs its entry names as ended become its `endedHere`. Names that are not
 * a list of ids are left out, alike on every member.
 */
function fireOfEntry(entry: unknown): unknown {
  if (typeof entry !== 'object' || entry === null || !('endedRuns' in entry)) return entry;
  const { endedRuns, ...fire } = entry as PlainFire;
  return runIds(endedRuns) ? { ...fire, endedHere: () => endedRuns } : fire;
}

/** Whether it is a list of run ids, as a fire names them; checked by hand, as every member applies every fire. */
function runIds(value: unknown): value is string[] {
  return (
    Array.isArray(value) &&
    value.length <= MAX_ENDED_RUNS &&
    value.every((id) => typeof id === 'string' && id.length <= 200)
  );
}

const MAX_NODES = 1_000;
const labelsSchema = z.record(z.string().max(200), z.string().max(200));

/** A published map as an entry carries it: checked where it is applied, so a bad one changes nothing. */
export const shardMapSchema: z.ZodType<ShardMap> = z.object({
  term: z.int().min(0),
  coordinator: z.string().max(300),
  publishedAt: z.number().finite(),
  nodes: z.array(z.object({ id: z.string().max(300), labels: labelsSchema })).max(MAX_NODES),
  owners: z.array(z.string().max(300).nullable()).length(SHARD_COUNT),
});

export const memberRecordSchema: z.ZodType<MemberRecord> = z.object({
  id: z.string().min(1).max(300),
  hostname: z.string().max(300),
  version: z.string().max(100),
  labels: labelsSchema,
  startedAt: z.number().finite(),
});

const cell = z.union([z.string(), z.number(), z.null()]);

/** A snapshot's rows as the wire carries them (the frame bounds their size). */
export const replicaRowsSchema: z.ZodType<ReplicaRows> = z.object({
  appliedIndex: z.int().min(0),
  tables: z.record(z.string().max(100), z.array(z.record(z.string().max(100), cell))),
});

/**
 * A snapshot sent as a file, as the wire carries it: the file's transfer id, size and hash. Where the file
 * is kept on arrival (`received`) is not taken from the wire.
 */
export const replicaFileSchema: z.ZodType<ReplicaFile> = z.object({
  appliedIndex: z.int().min(0),
  file: z.object({
    id: z.string().regex(/^[0-9a-f]{16}$/),
    bytes: z.int().min(1),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
});

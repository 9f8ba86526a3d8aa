import { randomUUID } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { placeOverwritten, type LogPlace } from '../../core/consensus/log-place.js';
import { SchedError } from '../../core/errors.js';
import { protocolFeatures, type ProtocolFeatures } from '../../core/peer/protocol-version.js';
import type { ShardMap } from '../../core/cluster/shard-map.js';
import type { Job } from '../../core/job.js';
import type { Run } from '../../core/run.js';
import type { SqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store, StoreChange } from '../../store/store.js';
import { StoreMachine, type StoreMachineListener } from './store-machine.js';
import {
  commandOf,
  LOCAL_READS,
  REPLICATED_WRITES,
  PUBLISH_MAP,
  REGISTER_MEMBER,
  RELAYED_KILL,
  type MemberRecord,
  type CommandOp,
  type OwnStoreMember,
  type StoreCommand,
} from './store-commands.js';

/**
 * Whether the leader took a command into its log, and where, or why not (no leader known, not the leader any
 * more, no answer): a command not taken is offered again, which its id makes safe (a copy that reaches the
 * log after the first is skipped where it is applied, see ProposerSessions).
 */
export type Submission =
  { accepted: true; at?: LogPlace } | { accepted: false; leader: string | null; reason: string };

/** A write's entry was overwritten by another leader's, or held another command: it is offered again. */
const LOST = Symbol('lost');
/** A write was applied (or refused where applied) while it was being offered. */
const SETTLED = Symbol('settled');

/** A write waiting on the entry it was taken at. */
interface Watching {
  id: string;
  place: LogPlace;
  lost: () => void;
}

export interface ReplicationOptions {
  nodeId: string;
  local: SqliteStore;
  /** Appends a command to the leader's log: through this member's Raft when it leads, else forwarded. */
  submit(command: StoreCommand): Promise<Submission>;
  clock: Clock;
  /** How long a write waits to be applied here before it is answered NO_QUORUM (10 s). */
  commitTimeoutMs?: number;
  /** How long to wait before offering a refused command again, while a leader is being elected (100 ms). */
  resubmitAfterMs?: number;
  /** The voters, and which of them this member hears from now, for the hint of NO_QUORUM. */
  voters(): { all: string[]; reachable: string[] };
  /** How long this member has heard no leader; a write is refused at once once that is `refuseAfterSilentMs`. */
  leaderSilentForMs?(): number;
  /** How long without a leader before writes are refused at once (the commit timeout when not given). */
  refuseAfterSilentMs?: number;
  /** The copy cannot record what it applied: the daemon must stop. */
  onFailed(error: Error): void;
  /** What every member that applies the log understands (see featuresOfAll); none of the features if absent. */
  understood?(): ProtocolFeatures;
}

/**
 * Peer mode's store: every write is a command in the replicated log, applied by each member to its own
 * SQLite, and answered once it is applied on this member (a write is read back here at once); every read
 * is this member's copy. Writes other members made reach this member's daemon as store changes, as
 * PostgreSQL's notifications do in a federation.
 */
export class Replication implements StoreMachineListener {
  readonly machine: StoreMachine;
  /** What this process's proposals' ids start with: its node and a boot id, so no earlier life's match. */
  private readonly proposer: string;
  private proposals = 0;
  private eventNode = '';
  private readonly waiting = new Map<string, (result: Promise<unknown>) => void>();
  /** The places of this member's writes taken into a log and not applied yet, by index. */
  private readonly watched = new Set<Watching>();
  /** The latest entry applied here. */
  private reachedPlace: LogPlace = { index: 0, term: 0 };
  /** How to answer each write waiting on the log at once, when this member loses the majority. */
  private readonly refusals = new Set<(error: SchedError) => void>();
  private readonly changeListeners = new Set<(change: StoreChange) => void>();
  private readonly mapListeners = new Set<(map: ShardMap, previous: ShardMap | null) => void>();
  /** What every member that applies the log understands, as a fire's command asks it (see commandOf). */
  private readonly understood = (): ProtocolFeatures => this.options.understood?.() ?? protocolFeatures(1);

  constructor(private readonly options: ReplicationOptions) {
    this.machine = new StoreMachine(options.local, this);
    this.proposer = `${options.nodeId}/${randomUUID().slice(0, 8)}/`;
  }

  /** The node this process's writes are marked with, as SqlStore.markEventsWith; `''` until it is known. */
  markEventsWith(node: string): void {
    this.eventNode = node;
  }

  /** Proposes the write and answers with what the store gave when this member applied it. */
  async write(op: CommandOp, args: readonly unknown[]): Promise<unknown> {
    const { clock } = this.options;
    const timeoutMs = this.options.commitTimeoutMs ?? 10_000;
    // Cut off that long, a write would most likely wait out its timeout too: the answer comes at once.
    const silentMs = this.options.leaderSilentForMs?.() ?? 0;
    if (silentMs >= (this.options.refuseAfterSilentMs ?? timeoutMs))
      throw this.noQuorum(`no leader heard for ${Math.round(silentMs / 1_000)} s`);
    this.proposals += 1;
    const command: StoreCommand = {
      ...commandOf(`${this.proposer}${this.proposals}`, this.eventNode, op, args, this.understood),
      at: Math.floor(clock.monotonic()),
    };
    let appliedHere = false;
    const applied = new Promise<unknown>((resolve) =>
      this.waiting.set(command.id, (result) => {
        // Settled once: a copy, or a snapshot, after the first application finds no waiter.
        this.waiting.delete(command.id);
        appliedHere = true;
        resolve(result);
      }),
    );
    // Applied before its submission is answered (a leader alone commits at once), a refusal waits unheard.
    applied.catch(() => undefined);
    // A copy offered earlier may be applied while the write is offered again: that settles it.
    const settled = applied.then(
      (): typeof SETTLED => SETTLED,
      (): typeof SETTLED => SETTLED,
    );
    const deadline = clock.monotonic() + timeoutMs;
    let cancel = (): void => undefined;
    let refuse = (_error: SchedError): void => undefined;
    const timedOut = new Promise<never>((_, reject) => {
      cancel = clock.setTimer(deadline - clock.monotonic(), () => reject(this.noQuorum('timed-out')));
      refuse = reject;
    });
    this.refusals.add(refuse);
    const watching: Watching = { id: command.id, place: { index: 0, term: 0 }, lost: () => undefined };
    let answered = false;
    try {
      for (;;) {
        const place = await Promise.race([
          this.submitUntilTaken(command, deadline, () => answered),
          settled,
          timedOut,
        ]);
        if (place === SETTLED) return await applied;
        const lost = this.lossOf(place, () => appliedHere, watching);
        const outcome = await Promise.race([applied, lost, timedOut]);
        if (outcome !== LOST) return outcome;
      }
    } finally {
      answered = true;
      this.watched.delete(watching);
      cancel();
      this.refusals.delete(refuse);
      this.waiting.delete(command.id);
    }
  }

  /**
   * Settles LOST once the entry at `place` can no longer commit (see placeOverwritten): the leader that took
   * it died or was deposed before a majority had it, so the write is offered again at once instead of waiting
   * out its timeout. Offering it again is safe even were a copy of it still to commit: the later one of the
   * two is skipped. Never settles for a place not known.
   */
  private lossOf(
    place: LogPlace | undefined,
    appliedHere: () => boolean,
    watching: Watching,
  ): Promise<typeof LOST> {
    const never = new Promise<never>(() => undefined);
    if (place === undefined) return never;
    if (this.machine.appliedIndex >= place.index)
      // Applied, or in a snapshot that says whether it was (see restored): else the place held another command.
      return appliedHere() || this.machine.hasApplied(watching.id) ? never : Promise.resolve(LOST);
    if (placeOverwritten(place, this.reachedPlace)) return Promise.resolve(LOST);
    return new Promise((settle) => {
      watching.place = place;
      watching.lost = () => settle(LOST);
      this.watched.add(watching);
    });
  }

  /**
   * This member lost touch with the majority: each write waiting on the log is answered NO_QUORUM now
   * rather than at its timeout, so what waits on it (a run's end, which holds its job's place) goes on
   * without the log.
   */
  quorumLost(reason: string): void {
    for (const refuse of [...this.refusals]) refuse(this.noQuorum(reason));
  }

  onChange(listener: (change: StoreChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** The shard map in force as of the entries applied here; null before the first is published. */
  currentMap(): ShardMap | null {
    return this.machine.shardMap;
  }

  /** Publishes a new map through the log (the coordinator does); refused when one of a later term is in force. */
  async publishMap(map: ShardMap): Promise<void> {
    await this.write(PUBLISH_MAP, [map]);
  }

  /** The members that registered, as of the entries applied here. */
  members(): readonly MemberRecord[] {
    return this.machine.memberRecords;
  }

  /** Records this member's labels, host and version in the log (on start, so the coordinator can place jobs). */
  async registerMember(record: MemberRecord): Promise<void> {
    await this.write(REGISTER_MEMBER, [record]);
  }

  onMapChanged(listener: (map: ShardMap, previous: ShardMap | null) => void): () => void {
    this.mapListeners.add(listener);
    return () => this.mapListeners.delete(listener);
  }

  mapChanged(map: ShardMap, previous: ShardMap | null): void {
    for (const listener of this.mapListeners) listener(map, previous);
  }

  applied(command: StoreCommand, result: Promise<unknown>): void {
    this.waiting.get(command.id)?.(result);
    if (!command.id.startsWith(this.proposer)) void this.announce(command, result);
  }

  /** A copy of a write applied before: its writer was answered by the first, unless that came in a snapshot. */
  repeated(command: StoreCommand): void {
    this.waiting.get(command.id)?.(Promise.reject(this.answerInSnapshot()));
  }

  reached(index: number, term: number): void {
    this.reachedPlace = { index, term };
    for (const watcher of this.watched)
      if (placeOverwritten(watcher.place, this.reachedPlace)) {
        this.watched.delete(watcher);
        watcher.lost();
      }
  }

  /**
   * The copy was replaced by a snapshot: a write it holds was applied with no answer to give here; a write
   * whose place it covers and does not hold was not, and is offered again.
   */
  restored(): void {
    for (const [id, settle] of this.waiting)
      if (this.machine.hasApplied(id)) settle(Promise.reject(this.answerInSnapshot()));
    for (const watcher of this.watched)
      if (watcher.place.index <= this.machine.appliedIndex) {
        this.watched.delete(watcher);
        if (!this.machine.hasApplied(watcher.id)) watcher.lost();
      }
    this.emit({ kind: 'missed' });
  }

  failed(error: Error): void {
    this.options.onFailed(error);
  }

  /**
   * Offers the command until the leader takes it. A refusal may leave it in a log (a leader that took it and
   * did not answer): a copy of it offered again is then skipped where it is applied, after the first.
   */
  private async submitUntilTaken(
    command: StoreCommand,
    deadline: number,
    answered: () => boolean,
  ): Promise<LogPlace | undefined> {
    const { clock } = this.options;
    for (;;) {
      // Answered already (timed out, or the quorum lost): offering it now would make a write it was told failed.
      if (answered()) throw this.noQuorum('timed-out');
      const submitted = await this.options.submit(command);
      if (submitted.accepted) return submitted.at;
      const wait = this.options.resubmitAfterMs ?? 100;
      if (clock.monotonic() + wait >= deadline) throw this.noQuorum(submitted.reason);
      await new Promise<void>((resolve) => clock.setTimer(wait, resolve));
    }
  }

  /** What another member's write changed, for this daemon to take in (once it is committed here). */
  private async announce(command: StoreCommand, result: Promise<unknown>): Promise<void> {
    const outcome = await result.catch(() => null);
    if (outcome === null) return;
    switch (command.op) {
      case 'createJob':
      case 'updateJob':
      case 'cancelJob':
        return this.emit({ kind: 'job', id: (outcome as Job).id });
      case 'rewriteDefinition':
        if (outcome === true) this.emit({ kind: 'job', id: (command.args[0] as Job).id });
        return;
      case 'insertRun':
      case 'retryRun':
        if ((outcome as Run).state === 'scheduled')
          this.emit({ kind: 'waiting-run', id: (outcome as Run).id });
        return;
      case RELAYED_KILL: {
        const [runId, reason] = command.args as [string, string];
        return this.emit({ kind: 'kill', runId, reason });
      }
      default:
    }
  }

  private emit(change: StoreChange): void {
    for (const listener of this.changeListeners) listener(change);
  }

  /** The answer of a write that this member took in applied, with a snapshot, which holds no answers. */
  private answerInSnapshot(): SchedError {
    return new SchedError(
      'NO_QUORUM',
      'The write was made, but this node learned so from a snapshot of the others’ copy, which does not say what it gave.',
      {
        hint: 'Read it back (`sched ls`, `sched history`); a write sent with --idempotency-key is safe to retry.',
        details: { reason: 'applied-in-snapshot' },
      },
    );
  }

  private noQuorum(reason: string): SchedError {
    const { all, reachable } = this.options.voters();
    const seen = reachable.length > 0 ? reachable.join(', ') : 'none';
    return new SchedError(
      'NO_QUORUM',
      `This node cannot reach a majority of the cluster's voters (${reason}); the write may not have been made.`,
      {
        hint:
          `It sees ${reachable.length} of ${all.length} voters (${seen}); a write needs ${Math.floor(all.length / 2) + 1}. ` +
          'Reads answer from this node’s copy, which may be stale; retry once the others are back (`sched cluster status`). ' +
          'A write sent with --idempotency-key is safe to retry.',
        details: { reason, voters: all, reachable },
      },
    );
  }
}

/** The Store port of peer mode: reads from `local`, writes through `replication`. */
export function replicatedStore(local: SqliteStore, replication: Replication): Store {
  const reads = Object.fromEntries(
    LOCAL_READS.map((name) => [name, (local[name] as (...args: unknown[]) => unknown).bind(local)]),
  );
  const writes = Object.fromEntries(
    REPLICATED_WRITES.map((name) => [name, (...args: unknown[]) => replication.write(name, args)]),
  );
  const own: Pick<Store, OwnStoreMember> = {
    capabilities: local.capabilities,
    markEventsWith: (node) => replication.markEventsWith(node),
    // Every member applies every write, so its own listeners hear the whole cluster's events.
    onEventsStored: (listener) => local.onEventsStored(listener),
    watchEvents: async () => null,
    watchChanges: async (onChange) => {
      const stop = replication.onChange(onChange);
      return async () => void stop();
    },
    relayKill: async (runId, reason) => void (await replication.write(RELAYED_KILL, [runId, reason])),
    // Its writes wait for the take-in (seconds for a large store): said at once, not as a check timed out.
    ping: async () => {
      if (local.replica.takingIn)
        throw new Error(
          'this node is taking in a snapshot of the store from the leader; writes wait until it is done',
        );
      await local.ping();
    },
    backupTo: (file, options) => local.backupTo(file, options),
    nextFenceEpoch: () => local.nextFenceEpoch(),
    close: () => local.close(),
  };
  return { ...reads, ...writes, ...own } as unknown as Store;
}

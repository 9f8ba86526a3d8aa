import fs from 'node:fs';
import type { LogEntry } from '../../core/consensus/raft-messages.js';
import { RestoreGivenUp, type ReplicaFile, type ReplicaState } from '../../store/sqlite/sqlite-replica.js';
import { SchedError } from '../../core/errors.js';
import type { SqliteStore } from '../../store/sqlite/sqlite-store.js';
import { ProposerSessions } from './proposer-sessions.js';
import type { RaftStateMachine } from './raft-host.js';
import type { ShardMap } from '../../core/cluster/shard-map.js';
import { mapReplaced } from '../../store/store-errors.js';
import type { Fire } from '../../store/store.js';
import {
  argsOf,
  memberRecordSchema,
  PUBLISH_MAP,
  REGISTER_MEMBER,
  RELAYED_KILL,
  shardMapSchema,
  type MemberRecord,
  type StoreCommand,
} from './store-commands.js';

export interface StoreMachineListener {
  /** A command was applied here: `result` is what the store gave (a rejection is its answer too). */
  applied(command: StoreCommand, result: Promise<unknown>): void;
  /** A copy of a command applied before (its id) came again, and was skipped: it changed nothing. */
  repeated(command: StoreCommand): void;
  /** The entry at `index` of `term` was applied here (a leader's empty entry too), after its command if any. */
  reached(index: number, term: number): void;
  /** The copy was replaced by a snapshot: anything read from it before may be stale. */
  restored(): void;
  /** A new shard map is in force (published through the log, or found in a snapshot). */
  mapChanged(map: ShardMap, previous: ShardMap | null): void;
  /** The copy could not record what it applied: this member must stop, not go on diverging. */
  failed(error: Error): void;
}

/**
 * The log applied to a member's SQLite store: each command calls the store's own write with the
 * proposer's arguments. The writes of one Raft step are asked for in log order in one turn of the event
 * loop, so they commit in order in one group commit, with the index of the last one; a restart finds that
 * index and skips what it had applied. A command the store refuses (a name taken) is refused alike on every
 * member, and the refusal is the proposer's answer. A command whose id was applied before is a copy of it,
 * offered again (see ProposerSessions), and is skipped.
 */
export class StoreMachine implements RaftStateMachine<StoreCommand, ReplicaState> {
  private applied: number;
  private map: ShardMap | null;
  private members: MemberRecord[];
  private readonly sessions: ProposerSessions;

  constructor(
    private readonly store: SqliteStore,
    private readonly listener: StoreMachineListener,
  ) {
    this.applied = store.replica.appliedIndex();
    this.sessions = new ProposerSessions(store.replica, (error) => listener.failed(error));
    this.map = store.replica.value<ShardMap>('replicated_shard_map');
    this.members = store.replica.value<MemberRecord[]>('replicated_members') ?? [];
  }

  get appliedIndex(): number {
    return this.applied;
  }

  /** The members that registered (their labels, host and version), as of the entries applied here. */
  get memberRecords(): readonly MemberRecord[] {
    return this.members;
  }

  /** The shard map in force as of the entries applied here. */
  get shardMap(): ShardMap | null {
    return this.map;
  }

  /** Whether the command of this id was applied here already. */
  hasApplied(id: string): boolean {
    return this.sessions.has(id);
  }

  apply(entry: LogEntry<StoreCommand | null>): void {
    if (entry.index <= this.applied) return;
    this.applied = entry.index;
    const command = entry.data;
    if (command !== null && this.sessions.firstApplication(command, entry.index)) this.carryOut(command);
    else if (command !== null) this.listener.repeated(command);
    this.store.replica.recordApplied(entry.index).catch((error: Error) => this.listener.failed(error));
    this.listener.reached(entry.index, entry.term);
  }

  /**
   * Starts over from `state`. A file is taken in aside (see SqliteReplica.replaceWithFile): the promise
   * settles once it is, and rejects (the listener told it failed) when it cannot be.
   */
  restore(state: ReplicaState): void | Promise<void> {
    // A restart hands back the last snapshot, which this copy has usually gone past.
    if (state.appliedIndex <= this.applied) return removeReceived(state);
    if ('tables' in state) {
      this.store.replica.replaceWith(state);
      return this.restored(state.appliedIndex);
    }
    if ('inPlace' in state) throw behindItsSnapshot(state.appliedIndex, this.applied);
    return this.restoreFromFile(state);
  }

  private async restoreFromFile(state: ReplicaFile): Promise<void> {
    try {
      if (state.received === undefined)
        throw new Error(`snapshot file ${state.file.id} was not received here`);
      this.restored(await this.store.replica.replaceWithFile(state.received));
    } catch (error) {
      // A store closed meanwhile (the daemon stops) leaves the rows as they were: nothing failed.
      if (!(error instanceof RestoreGivenUp)) this.listener.failed(error as Error);
      throw error;
    } finally {
      removeReceived(state);
    }
  }

  /** The replica became a snapshot's, as of `index`: what is kept beside the rows is read again. */
  private restored(index: number): void {
    this.applied = index;
    const previous = this.map;
    this.map = this.store.replica.value<ShardMap>('replicated_shard_map');
    this.members = this.store.replica.value<MemberRecord[]>('replicated_members') ?? [];
    this.sessions.reload();
    this.listener.restored();
    if (this.map !== null && this.map.publishedAt !== previous?.publishedAt)
      this.listener.mapChanged(this.map, previous);
  }

  /**
   * The copy itself, on disk through the entries applied: compacting the log copies no rows (a copy of
   * every row, taken every few thousand entries, held up every member for seconds once jobs were many).
   * It is sent to a member that needs it as a copy of the file (see snapshotFileChannel).
   */
  snapshot(): ReplicaState {
    return this.store.replica.keepInPlace();
  }

  private carryOut(command: StoreCommand): void {
    let result: Promise<unknown>;
    try {
      const stale = this.staleFence(command);
      if (command.op === RELAYED_KILL) {
        result = Promise.resolve();
      } else if (command.op === PUBLISH_MAP) {
        result = this.publish(command.args[0]);
      } else if (command.op === REGISTER_MEMBER) {
        result = this.register(command.args[0]);
      } else if (stale !== null) {
        result = Promise.reject(mapReplaced(stale, this.map?.term ?? null));
      } else {
        this.store.markEventsWith(command.node);
        const write = this.store[command.op] as (...args: unknown[]) => Promise<unknown>;
        result = write.apply(this.store, argsOf(command));
      }
    } catch (error) {
      result = Promise.reject(error as Error);
    }
    result.catch(() => undefined);
    this.listener.applied(command, result);
  }

  /** A map of an older term than the one in force is refused; any other takes its place. */
  private publish(raw: unknown): Promise<void> {
    const parsed = shardMapSchema.safeParse(raw);
    if (!parsed.success)
      return Promise.reject(new Error(`not a shard map: ${parsed.error.issues[0]?.message}`));
    const previous = this.map;
    if (previous !== null && parsed.data.term < previous.term)
      return Promise.reject(mapReplaced({ term: parsed.data.term }, previous.term));
    this.map = parsed.data;
    this.store.replica
      .recordValue('replicated_shard_map', parsed.data)
      .catch((error: Error) => this.listener.failed(error));
    this.listener.mapChanged(parsed.data, previous);
    return Promise.resolve();
  }

  /** A member's record replaces the one it had (its labels or version changed as it restarted). */
  private register(raw: unknown): Promise<void> {
    const parsed = memberRecordSchema.safeParse(raw);
    if (!parsed.success)
      return Promise.reject(new Error(`not a member record: ${parsed.error.issues[0]?.message}`));
    this.members = [...this.members.filter((member) => member.id !== parsed.data.id), parsed.data].sort(
      (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    this.store.replica
      .recordValue('replicated_members', this.members)
      .catch((error: Error) => this.listener.failed(error));
    return Promise.resolve();
  }

  /** The fence of a fire the command makes from a map that is not the one in force here (see Fire.fence). */
  private staleFence(command: StoreCommand): { term: number; publishedAt: number } | null {
    if (command.op !== 'recordFire' && command.op !== 'recordFires') return null;
    const fires = (command.op === 'recordFire' ? [command.args[0]] : command.args[0]) as Fire[];
    for (const { fence } of fires) {
      if (fence === undefined) continue;
      if (this.map === null || fence.term !== this.map.term || fence.publishedAt !== this.map.publishedAt)
        return fence;
    }
    return null;
  }
}

/** A file taken in is removed whether it was needed or not: it was made for this once. */
function removeReceived(state: ReplicaState): void {
  if ('file' in state && state.received !== undefined) fs.rmSync(state.received, { force: true });
}

function behindItsSnapshot(snapshotIndex: number, applied: number): SchedError {
  return new SchedError(
    'VALIDATION_FAILED',
    `This node's copy of the store is behind its consensus log: the log was compacted through entry ${snapshotIndex}, the copy holds entries through ${applied} only.`,
    {
      hint: 'The database file was replaced or rolled back. Remove this node from the cluster (`sched cluster leave NODE` on another member), move its sched.db and raft log aside, and join it again with --join.',
      details: { snapshotIndex, applied },
    },
  );
}

import type { LogEntry } from '../../core/consensus/raft-messages.js';
import type { ReplicaRows } from '../../store/sqlite/sqlite-replica.js';
import type { SqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { RaftStateMachine } from './raft-host.js';
import { argsOf, RELAYED_KILL, type StoreCommand } from './store-commands.js';

export interface StoreMachineListener {
  /** A command was applied here: `result` is what the store gave (a rejection is its answer too). */
  applied(command: StoreCommand, result: Promise<unknown>): void;
  /** The copy was replaced by a snapshot: anything read from it before may be stale. */
  restored(): void;
  /** The copy could not record what it applied: this member must stop, not go on diverging. */
  failed(error: Error): void;
}

/**
 * The log applied to a member's SQLite store: each command calls the store's own write with the
 * proposer's arguments. The writes of one Raft step are asked for in log order in one turn of the event
 * loop, so they commit in order in one group commit, with the index of the last one; a restart finds that
 * index and skips what it had applied. A command the store refuses (a name taken) is refused alike on every
 * member, and the refusal is the proposer's answer.
 */
export class StoreMachine implements RaftStateMachine<StoreCommand, ReplicaRows> {
  private applied: number;

  constructor(
    private readonly store: SqliteStore,
    private readonly listener: StoreMachineListener,
  ) {
    this.applied = store.replica.appliedIndex();
  }

  get appliedIndex(): number {
    return this.applied;
  }

  apply(entry: LogEntry<StoreCommand | null>): void {
    if (entry.index <= this.applied) return;
    this.applied = entry.index;
    if (entry.data !== null) this.carryOut(entry.data);
    this.store.replica.recordApplied(entry.index).catch((error: Error) => this.listener.failed(error));
  }

  restore(rows: ReplicaRows): void {
    // A restart hands back the last snapshot, which this copy has usually gone past.
    if (rows.appliedIndex <= this.applied) return;
    this.store.replica.replaceWith(rows);
    this.applied = rows.appliedIndex;
    this.listener.restored();
  }

  snapshot(): ReplicaRows {
    return this.store.replica.copy();
  }

  private carryOut(command: StoreCommand): void {
    let result: Promise<unknown>;
    try {
      if (command.op === RELAYED_KILL) {
        result = Promise.resolve();
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
}

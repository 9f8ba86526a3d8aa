import type { Clock } from '../../core/clock.js';
import { raftWire } from '../../core/consensus/raft-wire.js';
import type { ReplicaRows } from '../../store/sqlite/sqlite-replica.js';
import type { SqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import { CommandForwarding } from './command-forwarding.js';
import type { PeerStreams } from './peer-streams.js';
import { RaftDisk } from './raft-disk.js';
import { RaftHost } from './raft-host.js';
import { raftStreamChannel } from './raft-stream-channel.js';
import { Replication, replicatedStore } from './replicated-store.js';
import { replicaRowsSchema, storeCommandSchema, type StoreCommand } from './store-commands.js';

/** Raft's pace: elections after 1 to 2 s without a leader, heartbeats every 100 ms, a snapshot every 10,000 entries. */
export const PEER_RAFT_TIMING = { tickMs: 100, electionTicks: 10, heartbeatTicks: 1, compactEvery: 10_000 };

export interface PeerReplicaOptions {
  /** This member's id: the address the others reach its streams at. */
  self: string;
  voters: readonly string[];
  streams: PeerStreams;
  /** This member's SQLite store, opened (and locked) by the caller. */
  local: SqliteStore;
  /** The file of its Raft log (created 0600 by the caller). */
  raftFile: string;
  clock: Clock;
  timing?: typeof PEER_RAFT_TIMING;
  commitTimeoutMs?: number;
  /** The voters this member hears from now (membership's view), for NO_QUORUM's hint. */
  reachable(): string[];
  /** This member can no longer keep its copy: the daemon must stop. */
  onFailed(error: Error): void;
  /** A peer message that was dropped, and why (for a counter and the log). */
  onDrop?(reason: string, detail: string): void;
}

const wire = raftWire(storeCommandSchema.nullable(), replicaRowsSchema);

/**
 * One member of peer mode's replicated store: its Raft log on disk, Raft over the sealed peer streams,
 * writes forwarded to the leader, the log applied to its own SQLite. `store` is the Store the daemon uses.
 */
export class PeerReplica {
  readonly store: Store;
  readonly raft: RaftHost<StoreCommand, ReplicaRows>;
  readonly replication: Replication;
  private readonly disk: RaftDisk<StoreCommand, ReplicaRows>;

  constructor(private readonly options: PeerReplicaOptions) {
    const { self, voters, streams, local, clock } = options;
    const timing = options.timing ?? PEER_RAFT_TIMING;
    const drop = options.onDrop ?? (() => undefined);
    this.disk = RaftDisk.open<StoreCommand, ReplicaRows>(options.raftFile);
    const replication: Replication = (this.replication = new Replication({
      nodeId: self,
      local,
      submit: (command) => forwarding.submit(command),
      clock,
      commitTimeoutMs: options.commitTimeoutMs,
      voters: () => ({ all: [...voters], reachable: options.reachable() }),
      leaderSilentForMs: () => this.raft.leaderSilentForMs(),
      onFailed: options.onFailed,
    }));
    this.raft = new RaftHost({
      id: self,
      voters,
      disk: this.disk,
      channel: raftStreamChannel(streams, wire, drop),
      machine: replication.machine,
      clock,
      ...timing,
    });
    const forwarding = new CommandForwarding(streams, {
      self,
      raft: this.raft,
      clock,
      onMalformed: (detail) => drop('malformed', detail),
    });
    this.store = replicatedStore(local, replication);
  }

  start(): void {
    this.raft.start();
  }

  /** Stops taking part and closes the log (the streams and the copy are the caller's). */
  async close(): Promise<void> {
    this.raft.stop();
    this.disk.close();
  }
}

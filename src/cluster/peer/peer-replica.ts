import { z } from 'zod';
import type { Clock } from '../../core/clock.js';
import { raftWire } from '../../core/consensus/raft-wire.js';
import { featuresOfAll, protocolFeatures, type ProtocolFeatures } from '../../core/peer/protocol-version.js';
import type { ReplicaFile, ReplicaRows, ReplicaState } from '../../store/sqlite/sqlite-replica.js';
import type { RaftMessage } from '../../core/consensus/raft-messages.js';
import type { SqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import { CommandForwarding } from './command-forwarding.js';
import { LearnerRequests } from './learner-requests.js';
import type { PeerStreams } from './peer-streams.js';
import { RaftDisk, type ForcedRecovery } from './raft-disk.js';
import { RaftHost } from './raft-host.js';
import { raftStreamChannel, type RaftWireFormat } from './raft-stream-channel.js';
import { withSnapshotFiles } from './snapshot-file-channel.js';
import { snapshotPartStreams } from './snapshot-part-streams.js';
import { SNAPSHOT_STALL_MS } from './snapshot-sending.js';
import { Replication, replicatedStore } from './replicated-store.js';
import { QUORUM_LOST_AFTER_MS } from './quorum-watch.js';
import {
  replicaFileSchema,
  replicaRowsSchema,
  storeCommandSchema,
  type StoreCommand,
} from './store-commands.js';
import { VoterChanges } from './voter-changes.js';

/** Raft's pace: elections after 1 to 2 s without a leader, heartbeats every 100 ms, a snapshot every 10,000 entries. */
/**
 * A snapshot every 10,000 entries, with 10,000 more kept behind it: a member restarted, or cut off for a
 * minute at a few hundred entries a second, catches up by appends. A snapshot sent instead is a copy of
 * the whole database file (tens of megabytes with a day of runs), streamed in parts (see
 * snapshotFileChannel): far more to send than the entries it saves.
 */
export const PEER_RAFT_TIMING = {
  tickMs: 100,
  electionTicks: 10,
  heartbeatTicks: 1,
  compactEvery: 10_000,
  retainEntries: 10_000,
};

export interface PeerReplicaOptions {
  /** This member's id: the address the others reach its streams at. */
  self: string;
  /** The voters while its log holds none: every initial voter, or none for a node that joins a cluster. */
  voters: readonly string[];
  streams: PeerStreams;
  /** This member's SQLite store, opened (and locked) by the caller. */
  local: SqliteStore;
  /** The file of its Raft log (created 0600 by the caller). */
  raftFile: string;
  clock: Clock;
  timing?: Omit<typeof PEER_RAFT_TIMING, 'retainEntries'> & { retainEntries?: number };
  commitTimeoutMs?: number;
  /** Whether membership (gossip) sees `member` alive now. */
  isAlive(member: string): boolean;
  /** Whether membership holds `member` dead: a snapshot on its way to it is given up. */
  isDead?(member: string): boolean;
  /** The peer protocol version `member` advertises through membership; undefined for none (version 1). */
  protocolOf?(member: string): number | undefined;
  /**
   * The members gossip holds alive or suspect: besides the voters, they apply the log too (a member that
   * joins is sent it before it votes). Absent: the voters alone.
   */
  reachableMembers?(): readonly string[];
  /** Whom this member asks to be sent the log while it is not a voter: those it joins through, and gossip's. */
  contacts(): readonly string[];
  /** This member can no longer keep its copy: the daemon must stop. */
  onFailed(error: Error): void;
  /** Bytes in one part of a snapshot sent as a file (1 MiB); smaller in a test, for many parts. */
  snapshotPartBytes?: number;
  /** A peer message that was dropped, and why (for a counter and the log). */
  onDrop?(reason: string, detail: string): void;
}

const sentWire = raftWire(storeCommandSchema.nullable(), z.union([replicaFileSchema, replicaRowsSchema]));

/**
 * A snapshot travels as a file it names (see snapshotFileChannel), or as rows (an older version's); a
 * replica kept in place is not sent as such, nor where a member keeps a file it received.
 */
export const storeRaftWire: RaftWireFormat<StoreCommand, ReplicaState> = {
  encode(message) {
    const state = message.type === 'snapshot' ? message.snapshot.state : null;
    if (state !== null && 'inPlace' in state)
      throw new Error('a snapshot kept in place cannot be sent: it must be sent as a file');
    if (state !== null && 'received' in state)
      throw new Error('a snapshot file received cannot be sent on: a copy of it must be made');
    return sentWire.encode(message as RaftMessage<StoreCommand | null, ReplicaRows | ReplicaFile>);
  },
  decode: (bytes) => sentWire.decode(bytes),
};

/**
 * One member of peer mode's replicated store: its Raft log on disk, Raft over the sealed peer streams,
 * writes forwarded to the leader, the log applied to its own SQLite. `store` is the Store the daemon uses.
 */
export class PeerReplica {
  readonly store: Store;
  readonly raft: RaftHost<StoreCommand, ReplicaState>;
  readonly replication: Replication;
  /** `sched cluster join|leave`: one voter added or removed, through the leader. */
  readonly voterChanges: VoterChanges;
  private readonly learnerRequests: LearnerRequests;
  private readonly disk: RaftDisk<StoreCommand, ReplicaState>;
  private readonly snapshotFiles: { close(): Promise<void> };

  constructor(private readonly options: PeerReplicaOptions) {
    const { self, voters, streams, local, clock } = options;
    const timing = options.timing ?? PEER_RAFT_TIMING;
    const drop = options.onDrop ?? (() => undefined);
    this.disk = RaftDisk.open<StoreCommand, ReplicaState>(options.raftFile);
    try {
      this.disk.claimNode(self);
    } catch (error) {
      this.disk.close();
      throw error;
    }
    const replication: Replication = (this.replication = new Replication({
      nodeId: self,
      local,
      submit: (command) => forwarding.submit(command),
      clock,
      commitTimeoutMs: options.commitTimeoutMs,
      voters: () => {
        const all = [...this.raft.voters];
        return { all, reachable: all.filter((voter) => voter === self || options.isAlive(voter)) };
      },
      leaderSilentForMs: () => this.raft.leaderSilentForMs(),
      // As soon as the member is in degraded mode (see QuorumWatch), not a whole commit timeout later.
      refuseAfterSilentMs: QUORUM_LOST_AFTER_MS,
      onFailed: options.onFailed,
      understood: () => this.understood(),
    }));
    const snapshotFiles = (this.snapshotFiles = withSnapshotFiles(
      raftStreamChannel(streams, storeRaftWire, drop),
      {
        beside: options.raftFile,
        replica: local.replica,
        link: snapshotPartStreams(streams, clock, SNAPSHOT_STALL_MS),
        clock,
        partBytes: options.snapshotPartBytes,
        isDead: options.isDead,
        onDrop: drop,
      },
    ));
    this.raft = new RaftHost({
      id: self,
      voters,
      disk: this.disk,
      channel: snapshotFiles.channel,
      machine: replication.machine,
      clock,
      ...timing,
      // A member of an older build would drop a timeout-now: it is never handed the leadership.
      takesTransfer: (member) => protocolFeatures(options.protocolOf?.(member)).leadershipTransfer,
    });
    const forwarding = new CommandForwarding(streams, {
      self,
      raft: this.raft,
      clock,
      onMalformed: (detail) => drop('malformed', detail),
    });
    this.store = replicatedStore(local, replication);
    const onMalformed = (detail: string) => drop('malformed', detail);
    const { isAlive, contacts, protocolOf } = options;
    this.learnerRequests = new LearnerRequests(streams, {
      self,
      raft: this.raft,
      contacts,
      isAlive,
      protocolOf,
      clock,
      onMalformed,
    });
    this.voterChanges = new VoterChanges(streams, {
      self,
      raft: this.raft,
      isAlive,
      protocolOf,
      clock,
      onMalformed,
    });
  }

  /** The voters a recovery forced on this member, with when and by whom, until the log supersedes them. */
  get forcedRecovery(): ForcedRecovery | null {
    return this.disk.forcedRecovery();
  }

  /**
   * What every member that applies the log understands: the voters, alive or not, those this member sends
   * the log to as learners (leading), and the members gossip holds alive or suspect. One of an older build
   * that comes back from the dead without a vote would apply what it missed as its build does; a rolling
   * upgrade keeps its members alive, or upgrades them first.
   */
  private understood(): ProtocolFeatures {
    const { self, protocolOf } = this.options;
    const { voters, learners } = this.raft;
    const members = new Set([...voters, ...learners, ...(this.options.reachableMembers?.() ?? [])]);
    members.delete(self);
    return featuresOfAll([...members].map((member) => protocolOf?.(member)));
  }

  start(): void {
    this.raft.start();
    this.learnerRequests.start();
  }

  /**
   * Stops taking part and closes the log (the streams and the copy are the caller's). A leader hands its
   * leadership over first, so the others need not wait out an election timeout.
   */
  async close(): Promise<void> {
    await this.raft.handOver();
    this.learnerRequests.stop();
    this.raft.stop();
    await this.snapshotFiles.close();
    this.disk.close();
  }
}

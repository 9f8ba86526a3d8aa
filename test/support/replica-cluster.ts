import fs from 'node:fs';
import path from 'node:path';
import { RaftDisk } from '../../src/cluster/peer/raft-disk.js';
import { submissionOf } from '../../src/cluster/peer/command-forwarding.js';
import { RaftHost, type RaftChannel } from '../../src/cluster/peer/raft-host.js';
import { withSnapshotFiles } from '../../src/cluster/peer/snapshot-file-channel.js';
import type { SnapshotPartLink } from '../../src/cluster/peer/snapshot-sending.js';
import { Replication, replicatedStore, type Submission } from '../../src/cluster/peer/replicated-store.js';
import { storeRaftWire as wire } from '../../src/cluster/peer/peer-replica.js';
import { storeCommandSchema, type StoreCommand } from '../../src/cluster/peer/store-commands.js';
import type { ProtocolFeatures } from '../../src/core/peer/protocol-version.js';
import { systemClock } from '../../src/daemon/clock.js';
import type { ReplicaState } from '../../src/store/sqlite/sqlite-replica.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { waitFor } from './sched-harness.js';

type Host = RaftHost<StoreCommand, ReplicaState>;

export interface ReplicaMember {
  id: string;
  store: Store;
  local: SqliteStore;
  host: Host;
  replication: Replication;
  disk: RaftDisk<StoreCommand, ReplicaState>;
  snapshotFiles: { close(): Promise<void> };
}

/**
 * Members of one process over a loopback network whose messages cross as the peer streams carry them
 * (encoded, then decoded and validated), each delivered on a later turn of the event loop. A command is
 * submitted to whichever member leads, as the daemon's forwarding does over the network.
 */
export class ReplicaCluster {
  readonly members = new Map<string, ReplicaMember>();
  readonly cutOff = new Set<string>();
  /** Members whose messages are lost on the way out, while they still hear the others (a one-way cut). */
  readonly mute = new Set<string>();
  /**
   * Leaders that take a write forwarded to them and never answer: the writer hears nothing for the forwarding's
   * answer timeout (shortened). `answer-lost`: the first offer's answer is lost, and the leader's appends held
   * until the writer offers it again, which is answered; `cut-off`: the leader is cut off as it takes it.
   */
  readonly unanswering = new Map<string, 'answer-lost' | 'cut-off'>();
  private readonly handlers = new Map<
    string,
    (message: Parameters<RaftChannel<StoreCommand, ReplicaState>['send']>[0]) => void
  >();
  failures: Error[] = [];
  /** Snapshots sent, by the member they went to. */
  readonly snapshotsTo = new Map<string, number>();
  /** Parts of snapshot files sent, by the member they went to. */
  readonly partsTo = new Map<string, number>();
  /** Parts and snapshot files refused, transfers failed: `reason: detail`. */
  readonly snapshotDrops: string[] = [];
  /** What becomes of a part of a snapshot file on its way to `to` (its place among those sent it): null, lost. */
  alterPart: ((to: string, part: Buffer, sent: number) => Buffer | null) | null = null;
  private readonly partHandlers = new Map<string, (part: Buffer) => void>();

  constructor(
    readonly dir: string,
    readonly ids: readonly string[],
    private readonly tuning: {
      compactEvery?: number;
      retainEntries?: number;
      commitTimeoutMs?: number;
      snapshotPartBytes?: number;
      /** What every member understands of the peer protocol; none of its features if absent. */
      understood?: () => ProtocolFeatures;
    } = {},
  ) {
    fs.mkdirSync(dir, { recursive: true });
  }

  startAll(): void {
    for (const id of this.ids) this.start(id);
  }

  start(id: string): ReplicaMember {
    const local = openSqliteStore(path.join(this.dir, `${id}.db`));
    const disk = RaftDisk.open<StoreCommand, ReplicaState>(path.join(this.dir, `${id}.raft`));
    const replication = new Replication({
      nodeId: id,
      local,
      submit: (command) => this.submit(id, command),
      clock: systemClock,
      commitTimeoutMs: this.tuning.commitTimeoutMs ?? 10_000,
      resubmitAfterMs: 20,
      voters: () => ({ all: [...this.ids], reachable: this.ids.filter((other) => this.reaches(id, other)) }),
      onFailed: (error) => this.failures.push(error),
      leaderSilentForMs: () => host.leaderSilentForMs(),
      understood: this.tuning.understood,
    });
    const raftFile = path.join(this.dir, `${id}.raft`);
    const snapshotFiles = withSnapshotFiles(this.channel(id), {
      beside: raftFile,
      replica: local.replica,
      link: this.partLink(id),
      clock: systemClock,
      partBytes: this.tuning.snapshotPartBytes,
      onDrop: (reason, detail) => this.snapshotDrops.push(`${reason}: ${detail}`),
    });
    const host: Host = new RaftHost({
      id,
      voters: this.ids,
      disk,
      channel: snapshotFiles.channel,
      machine: replication.machine,
      clock: systemClock,
      tickMs: 10,
      electionTicks: 10,
      heartbeatTicks: 2,
      compactEvery: this.tuning.compactEvery ?? 10_000,
      retainEntries: this.tuning.retainEntries,
    });
    const store = replicatedStore(local, replication);
    const member = { id, store, local, host, replication, disk, snapshotFiles };
    this.members.set(id, member);
    host.start();
    return member;
  }

  async stop(id: string): Promise<void> {
    const member = this.members.get(id);
    if (!member) return;
    this.members.delete(id);
    member.host.stop();
    await member.snapshotFiles.close();
    await member.local.close();
    member.disk.close();
  }

  async stopAll(): Promise<void> {
    for (const id of [...this.members.keys()]) await this.stop(id);
  }

  /** Until one member leads and another follows (a write through that one is forwarded). */
  async untilSettled(): Promise<void> {
    await waitFor(
      async () =>
        this.leader() !== undefined &&
        [...this.members.values()].some((member) => member.host.role === 'follower'),
      10_000,
      10,
    );
  }

  /**
   * Until every running member has applied the log as far as the others, and committed what it applied:
   * an entry's writes join the group commit as it is applied, which commits them on the next turn of the
   * event loop, so a read at once may not see them yet (a loaded machine put the check and that read in
   * one turn: 10 jobs of 12 were counted).
   */
  async untilAllApplied(): Promise<void> {
    await waitFor(
      async () =>
        new Set([...this.members.values()].map((member) => member.replication.machine.appliedIndex)).size ===
        1,
      10_000,
      10,
    );
    await new Promise((resolve) => setImmediate(resolve));
  }

  member(id: string): ReplicaMember {
    const member = this.members.get(id);
    if (!member) throw new Error(`member ${id} is not running`);
    return member;
  }

  leader(): ReplicaMember | undefined {
    return [...this.members.values()].find(
      (member) => member.host.role === 'leader' && !this.cutOff.has(member.id),
    );
  }

  /**
   * A member that follows (a write through it is forwarded). Not merely one other than leader(): while a deposed
   * leader has not heard of its successor two members say they lead; nor a candidate, which may hold a winning
   * vote its host has taken in but not yet stepped on, and lead a moment later, after a test cut it off.
   */
  follower(): ReplicaMember {
    const other = [...this.members.values()].find((member) => member.host.role === 'follower');
    if (!other) throw new Error('no follower is running');
    return other;
  }

  private reaches(from: string, to: string): boolean {
    if (from === to) return true;
    return this.members.has(to) && !this.cutOff.has(from) && !this.cutOff.has(to) && !this.mute.has(from);
  }

  private async submit(from: string, command: StoreCommand): Promise<Submission> {
    const leader = [...this.members.values()].find(
      (member) => member.host.role === 'leader' && this.reaches(from, member.id),
    );
    if (!leader) return { accepted: false, leader: null, reason: 'no leader known' };
    // Across the wire, as a forwarded command would go.
    const decoded = storeCommandSchema.parse(JSON.parse(JSON.stringify(command)));
    const fault = leader.id === from ? undefined : this.unanswering.get(leader.id);
    if (fault === undefined) return submissionOf(leader.host.offer(decoded));
    const offer = leader.host.offer(decoded);
    if (fault === 'answer-lost' && this.mute.delete(leader.id)) return submissionOf(offer);
    // Lost: the leader's appends wait (a mute while the writer offers it again), so both copies commit.
    if (fault === 'answer-lost') this.mute.add(leader.id);
    if (fault === 'cut-off') this.cutOff.add(leader.id);
    await new Promise((resolve) => setTimeout(resolve, fault === 'cut-off' ? 200 : 0));
    return { accepted: false, leader: leader.id, reason: 'the leader did not answer' };
  }

  /** Parts of snapshot files, each delivered on a later turn of the event loop, while the two reach each other. */
  private partLink(from: string): SnapshotPartLink {
    return {
      send: async (to, part) => {
        const sent = (this.partsTo.get(to) ?? 0) + 1;
        this.partsTo.set(to, sent);
        const altered = this.alterPart ? this.alterPart(to, Buffer.from(part), sent) : Buffer.from(part);
        await new Promise((resolve) => setImmediate(resolve));
        if (altered !== null && this.reaches(from, to)) this.partHandlers.get(to)?.(altered);
        return true;
      },
      // Parts to a member cut off are lost as if on the way: no connection is seen to fail.
      connection: () => 0,
      onPart: (handler) => this.partHandlers.set(from, handler),
    };
  }

  private channel(id: string): RaftChannel<StoreCommand, ReplicaState> {
    return {
      send: (message) => {
        if (message.type === 'snapshot')
          this.snapshotsTo.set(message.to, (this.snapshotsTo.get(message.to) ?? 0) + 1);
        const bytes = wire.encode(message);
        setImmediate(() => {
          if (!this.reaches(message.from, message.to)) return;
          const decoded = wire.decode(bytes);
          if (!decoded.ok) throw new Error(`a member sent what the wire refuses: ${decoded.reason}`);
          this.handlers.get(message.to)?.(decoded.message);
        });
      },
      onMessage: (handler) => this.handlers.set(id, handler),
    };
  }
}

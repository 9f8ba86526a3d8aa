import { randomInt } from 'node:crypto';
import path from 'node:path';
import { PeerCluster } from '../../cluster/peer-cluster.js';
import { readClusterKeyFile } from '../../cluster/peer/cluster-key-file.js';
import { PeerDrops, type PeerDrop } from '../../cluster/peer/peer-drops.js';
import { PeerKeyring } from '../../cluster/peer/peer-keyring.js';
import { PEER_RAFT_TIMING, PeerReplica } from '../../cluster/peer/peer-replica.js';
import type { ForcedRecovery } from '../../cluster/peer/raft-disk.js';
import type { VoterChange, VoterChangeResult } from '../../cluster/peer/voter-changes.js';
import { PeerStreams } from '../../cluster/peer/peer-streams.js';
import { QUORUM_CHECK_EVERY_MS, QuorumWatch } from '../../cluster/peer/quorum-watch.js';
import { SwimMembership } from '../../cluster/peer/swim-membership.js';
import { memberLeaseExpired, type MemberLeaseBounds } from '../../core/cluster/member-lease.js';
import { SchedError } from '../../core/errors.js';
import { formatPeerAddress, parsePeerAddress, type PeerAddress } from '../../core/peer/peer-address.js';
import { PROTOCOL_VERSION } from '../../core/peer/protocol-version.js';
import { SqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { DEFAULT_KILL_GRACE_MS } from '../executor/command-executor.js';
import { createPrivateFile } from '../private-file.js';
import type { Service } from '../service.js';

/** `--peers` or `--join`, `--bind`, `--advertise`, `--cluster-key-file`: how this daemon joins its peers. */
export interface PeerSettings {
  /** Every voter's address, this node's included (the same list on every host); empty with `join`. */
  peers: string[];
  /**
   * Members of a running cluster to join through: this node starts with no voters, follows the log as a
   * learner, and votes once `sched cluster join` adds it. Its log's configuration rules from then on.
   */
  join?: string[];
  bind: string;
  /** The address the others reach this node at (its id); the bind address when that is not a wildcard. */
  advertise?: string;
  keyFile: string;
}

export interface PeerMembershipOptions {
  settings: PeerSettings;
  home: string;
  /** The store the daemon opened: peer mode keeps its replica in this node's SQLite file. */
  local: Store;
  labels: Record<string, string>;
  version: string;
  clock: Clock;
  startedAt: number;
  /** This daemon's running runs, for the other members' `sched cluster status`. */
  load: () => number;
  onError: (error: Error) => void;
  /** A peer message dropped (it did not open, was too large, malformed, ...): for a counter and the log. */
  onDrop: (drop: PeerDrop) => void;
  /** The copy can no longer be kept (a write to it failed): the daemon must stop. */
  onFailed: (error: Error) => void;
  /** This node is on a side without a majority: writes are refused, every-host jobs go on without the log. */
  onQuorumLost: (error: SchedError) => void;
  onQuorumRegained: () => void;
  /** This node's lease on its runs ran out: the runs of once-jobs must stop (see member-lease.ts). */
  onLeaseExpired: () => void;
  /** The voters in force changed (a join, a leave, a recovery), as this node's log says. */
  onVoters?: (voters: readonly string[]) => void;
}

/**
 * A member keeps its runs five seconds past its last sure contact with a leader (degraded mode begins at
 * three); it may notice a check and a Raft tick late, and gives a run the kill's grace and a second to go.
 */
export const PEER_MEMBER_LEASE: MemberLeaseBounds = {
  durationMs: 5_000,
  stopMs: QUORUM_CHECK_EVERY_MS + PEER_RAFT_TIMING.tickMs + DEFAULT_KILL_GRACE_MS + 1_000,
  maxDrift: 0.05,
};

/** A voter unheard for this long gets no new work: the longest a follower waits for a leader before it stands. */
const PLACE_UNHEARD_FOR_MS = 2 * PEER_RAFT_TIMING.electionTicks * PEER_RAFT_TIMING.tickMs;

/**
 * This daemon as a member of a peer cluster, for as long as it runs: the sealed peer streams and
 * datagrams, membership by gossip, its replica of the log (its store), and its place in the cluster.
 */
export class PeerMembership implements Service {
  readonly name = 'peer membership';
  private streams: PeerStreams | null = null;
  private swim: SwimMembership | null = null;
  private replica: PeerReplica | null = null;
  private joined: PeerCluster | null = null;
  private quorum: QuorumWatch | null = null;
  private keys: PeerKeyring | null = null;

  constructor(private readonly options: PeerMembershipOptions) {}

  get store(): Store {
    if (this.replica === null) throw new Error('the peer store is used before it was opened');
    return this.replica.store;
  }

  get cluster(): PeerCluster {
    if (this.joined === null) throw new Error('the peer cluster is used before it was joined');
    return this.joined;
  }

  /** The keyring that seals this node's traffic, for `sched cluster keys`. */
  get keyring(): PeerKeyring {
    if (this.keys === null) throw new Error('the cluster keyring is used before it was read');
    return this.keys;
  }

  /** `sched cluster join|leave`: through the leader, answered once the new voters are committed. */
  changeVoters(change: VoterChange): Promise<VoterChangeResult> {
    if (this.replica === null) throw new Error('the peer replica is used before it was opened');
    return this.replica.voterChanges.change(change);
  }

  /** Whether this node's lease on its runs ran out: it may not start a once-job's run (see member-lease.ts). */
  leaseExpired(): boolean {
    return this.replica !== null && memberLeaseExpired(this.replica.raft.leaseAgeMs(), PEER_MEMBER_LEASE);
  }

  /** The voters `sched cluster recover --force` forced on this node, until its log supersedes them. */
  get forcedRecovery(): ForcedRecovery | null {
    return this.replica?.forcedRecovery ?? null;
  }

  async start(): Promise<void> {
    const { settings, home, labels, version, clock, startedAt } = this.options;
    const local = sqliteOnly(this.options.local);
    const bind = parsePeerAddress(settings.bind);
    const self = formatPeerAddress(advertisedAddress(bind, settings.advertise));
    const voters = [...new Set(settings.peers.map((peer) => formatPeerAddress(parsePeerAddress(peer))))];
    const joinThrough = (settings.join ?? []).map((peer) => formatPeerAddress(parsePeerAddress(peer)));
    checkPeerList(self, voters, joinThrough);
    const keyring = readClusterKeyFile(settings.keyFile);
    const random = () => randomInt(2 ** 47) / 2 ** 47;
    const drops = new PeerDrops(this.options.onDrop);
    const streamSeal = drops.seal(keyring, 'stream');
    const datagramSeal = drops.seal(keyring, 'datagram');
    this.keys = new PeerKeyring(settings.keyFile, keyring, [streamSeal, datagramSeal]);
    this.streams = await PeerStreams.open({
      bind,
      seal: streamSeal,
      clock,
      random,
      onDrop: drops.on('stream'),
    });
    this.swim = await SwimMembership.start({
      bind,
      advertise: parsePeerAddress(self),
      seeds: [...voters, ...joinThrough].filter((peer) => peer !== self).map(parsePeerAddress),
      seal: datagramSeal,
      streams: this.streams,
      clock,
      load: this.options.load,
      protocolVersion: PROTOCOL_VERSION,
      onDrop: drops.on('datagram'),
      onError: this.options.onError,
    });
    const swim = this.swim;
    const raftFile = path.join(home, 'raft.db');
    createPrivateFile(raftFile);
    this.replica = new PeerReplica({
      self,
      voters,
      streams: this.streams,
      local,
      raftFile,
      clock,
      isAlive: (member) => swim.stateOf(member) === 'alive',
      isDead: (member) => swim.stateOf(member) === 'dead',
      protocolOf: (member) => swim.protocolOf(member),
      reachableMembers: () =>
        swim
          .view()
          .filter((member) => member.state !== 'dead')
          .map((member) => member.id),
      contacts: () => [
        ...joinThrough,
        ...swim
          .view()
          .filter((member) => member.state === 'alive')
          .map((member) => member.id),
      ],
      onFailed: this.options.onFailed,
      onDrop: drops.on('stream'),
    });
    this.replica.start();
    const raft = this.replica.raft;
    this.quorum = new QuorumWatch({
      leaderSilentForMs: () => raft.leaderSilentForMs(),
      clock,
      onLost: (error) => {
        this.replica?.replication.quorumLost(error.message);
        this.options.onQuorumLost(error);
      },
      onRegained: this.options.onQuorumRegained,
      leaseContactAt: () => raft.leaseContactAt(),
      lease: PEER_MEMBER_LEASE,
      onLeaseExpired: this.options.onLeaseExpired,
    });
    this.quorum.start();
    this.joined = new PeerCluster({
      self,
      labels,
      version,
      raft: this.replica.raft,
      replication: this.replica.replication,
      membership: swim,
      lease: PEER_MEMBER_LEASE,
      placeUnheardForMs: PLACE_UNHEARD_FOR_MS,
      clock,
      startedAt,
      load: this.options.load,
      onError: this.options.onError,
      onVoters: this.options.onVoters,
    });
    this.joined.start();
  }

  async stop(): Promise<void> {
    this.quorum?.stop();
    await this.joined?.leave();
    await this.replica?.close();
    await this.swim?.stop();
    await this.streams?.close();
  }
}

/** A node starts as one of the initial voters (`--peers`, itself among them) or joins a cluster (`--join`). */
function checkPeerList(self: string, voters: string[], joinThrough: string[]): void {
  if (joinThrough.includes(self))
    throw new SchedError('VALIDATION_FAILED', `--join names this node itself (${self}).`, {
      hint: 'Give --join the address of a member of the running cluster, not this node’s own.',
    });
  if (joinThrough.length > 0 || voters.includes(self)) return;
  throw new SchedError(
    'VALIDATION_FAILED',
    `This node (${self}) is not among --peers (${voters.join(', ')}).`,
    {
      hint:
        'List every voter in --peers, this node included, with the address the others reach it at (--advertise). ' +
        'To add this node to a running cluster, start it with --join MEMBER instead and run `sched cluster join` on a member.',
    },
  );
}

function advertisedAddress(bind: PeerAddress, advertise: string | undefined): PeerAddress {
  if (advertise !== undefined) return parsePeerAddress(advertise);
  if (bind.host === '0.0.0.0' || bind.host === '::')
    throw new SchedError('VALIDATION_FAILED', `--bind ${formatPeerAddress(bind)} listens on every address.`, {
      hint: 'Say which one the other peers reach this node at with --advertise HOST:PORT.',
    });
  return bind;
}

function sqliteOnly(store: Store): SqliteStore {
  if (store instanceof SqliteStore) return store;
  throw new SchedError(
    'VALIDATION_FAILED',
    'Peer mode (--peers) keeps each node’s jobs in its own SQLite file; it cannot use a PostgreSQL store.',
    { hint: 'Drop --store (or SCHED_STORE), or federate through PostgreSQL without --peers.' },
  );
}

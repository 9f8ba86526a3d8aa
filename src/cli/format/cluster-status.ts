import chalk, { type ChalkInstance } from 'chalk';
import { formatDuration } from '../../core/duration.js';
import type { ClusterNodeStatus, ClusterStatus } from '../../ipc/protocol.js';
import { formatLabels } from './labels.js';
import { renderTable } from './table.js';
import { formatRelative } from './time.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `3f2a9c1e`: a node id as people say it, the first block of its UUID (as git shortens hashes). */
export function shortNodeId(id: string): string {
  return UUID.test(id) ? id.slice(0, 8) : id;
}

/**
 * `0.4s`, `12s`, `3m`: how long ago something happened. Heartbeats come every second or so, so under ten
 * seconds the tenths are what tells a live node from a lagging one; past that, the usual relative time.
 */
export function formatElapsed(ms: number): string {
  // The database's clock and ours may disagree a little; a heartbeat is never in the future.
  const elapsed = Math.max(0, ms);
  if (elapsed < 10_000) return `${(Math.floor(elapsed / 100) / 10).toFixed(1)}s`;
  return formatRelative(0, elapsed).replace(/ ago$/, '');
}

/** `0.4s ago`, `12s ago`, `3m ago`. */
export function formatAge(ageMs: number): string {
  return `${formatElapsed(ageMs)} ago`;
}

/** `* 3f2a9c1e (this)`: `*` marks the coordinator; the blank in its place keeps the ids aligned. */
export function nodeName(node: ClusterNodeStatus): string {
  return `${node.coordinator ? '*' : ' '} ${shortNodeId(node.id)}${node.self ? ' (this)' : ''}`;
}

/** The coordinator first, then live nodes, then dead ones; by host name within each. */
export function orderNodes(nodes: readonly ClusterNodeStatus[]): ClusterNodeStatus[] {
  const rank = (node: ClusterNodeStatus) => (node.coordinator ? 0 : node.alive ? 1 : 2);
  return [...nodes].sort(
    (a, b) => rank(a) - rank(b) || a.hostname.localeCompare(b.hostname) || a.id.localeCompare(b.id),
  );
}

function describeMode(mode: ClusterStatus['mode']): string {
  if (mode === 'peers') return 'peers (daemons replicating one log among themselves, no shared database)';
  return mode === 'single'
    ? 'single (one daemon, its own SQLite store)'
    : 'federated (daemons sharing PostgreSQL)';
}

/** `8b1d2e3f, term 42`, or who is missing while no node holds the coordinator lease. */
export function describeCoordinator(status: ClusterStatus): string {
  const who =
    status.coordinator === null
      ? 'none (no node holds the lease)'
      : `${shortNodeId(status.coordinator)}${status.coordinator === status.node ? ' (this)' : ''}`;
  return `${who}, term ${status.term}`;
}

/** `published 12s ago`: how old the shard map in force is. */
function describeShardMap(status: ClusterStatus): string {
  return status.mapPublishedAt === null
    ? 'none yet'
    : `published ${formatAge(status.now - status.mapPublishedAt)}`;
}

export function describeFiringLag(lagMs: number | null): string {
  return lagMs === null
    ? 'none yet (nothing has fired)'
    : `${formatDuration(lagMs)} (p99 over the last minute)`;
}

/** How many shards no live node owns, or null when every shard has an owner. */
export function describeUnassigned(unassignedShards: number): string | null {
  if (unassignedShards <= 0) return null;
  return `${unassignedShards} shard${unassignedShards === 1 ? '' : 's'} (no live node owns them)`;
}

export function renderNodeTable(status: ClusterStatus, painter: ChalkInstance = chalk): string {
  const rows = orderNodes(status.nodes).map((node) => [
    nodeName(node),
    node.hostname,
    node.alive ? painter.green('alive') : painter.red('dead'),
    String(node.shards),
    String(node.load),
    formatAge(status.now - node.heartbeatAt),
    node.version,
    formatLabels(node.labels) || '-',
  ]);
  return renderTable(
    [
      { header: 'NODE' },
      { header: 'HOST' },
      { header: 'STATE' },
      { header: 'SHARDS', align: 'right' },
      { header: 'LOAD', align: 'right' },
      { header: 'HEARTBEAT', align: 'right' },
      { header: 'VERSION' },
      { header: 'LABELS' },
    ],
    rows,
  );
}

/**
 * Peer mode's Raft and membership: the voters (each as membership sees it, with the protocol version it
 * advertises) and the leader with its term.
 */
function describePeers(peers: NonNullable<ClusterStatus['peers']>): [string, string][] {
  const memberOf = new Map(peers.members.map((member) => [member.id, member]));
  const describe = (voter: string) => {
    const member = memberOf.get(voter);
    const protocol = member?.protocol === undefined ? '' : `, protocol ${member.protocol}`;
    return `${voter} (${member?.state ?? 'unknown'}${protocol})`;
  };
  const voters = peers.voters.map(describe).join(', ');
  return [
    ['Voters', voters],
    [
      'Leader',
      `${peers.leader ?? 'none (an election is under way, or no majority is reachable)'}, term ${peers.raftTerm}`,
    ],
  ];
}

/** This node's id; in peer mode, said when it is not a voter (joining, or removed). */
function describeThisNode(status: ClusterStatus): string {
  if (status.peers === undefined || status.peers.voting) return status.node;
  return `${status.node} (not a voter: it follows the log; \`sched cluster join ${status.node}\` on a voter makes it one)`;
}

/** `sched cluster status` for people: who is who above the node table, what is wrong or late below it. */
export function renderClusterStatus(status: ClusterStatus, painter: ChalkInstance = chalk): string {
  const unassigned = describeUnassigned(status.unassignedShards);
  const above: [string, string][] = [
    ['Mode', describeMode(status.mode)],
    ['This node', describeThisNode(status)],
    ['Coordinator', describeCoordinator(status)],
    ['Shard map', describeShardMap(status)],
    ...(status.peers ? describePeers(status.peers) : []),
  ];
  const below: [string, string][] = [
    ...(unassigned === null ? [] : [['Unassigned', painter.yellow(unassigned)] as [string, string]]),
    ['Firing lag', describeFiringLag(status.firingLagMs)],
  ];
  const field = ([label, value]: [string, string]) => `${`${label}:`.padEnd(13)} ${value}`;
  const degraded = status.degraded === undefined ? [] : [painter.yellow(status.degraded), ''];
  return [
    ...degraded,
    ...above.map(field),
    '',
    renderNodeTable(status, painter),
    '',
    ...below.map(field),
  ].join('\n');
}

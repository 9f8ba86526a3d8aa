import { formatAge, formatElapsed, nodeName, orderNodes, shortNodeId } from '../cli/format/cluster-status.js';
import { formatLabels } from '../cli/format/labels.js';
import { formatDuration } from '../core/duration.js';
import type { ClusterStatus } from '../ipc/protocol.js';
import type { Cell } from './cells.js';
import { clusterColumns, clusterRows, type ClusterColumns } from './layout.js';
import type { DashState } from './state/types.js';

/** One daemon of the cluster as the cluster view draws it. */
export interface ClusterNodeRowView {
  id: string;
  /** `* 8b1d2e3f (this)`: `*` marks the coordinator. */
  name: string;
  host: string;
  state: Cell;
  shards: string;
  load: string;
  heartbeat: string;
  version: string;
  labels: string;
  /** Dead nodes are drawn dim, so the live ones stand out. */
  dead: boolean;
}

export interface ClusterPanelView {
  columns: ClusterColumns;
  /** `federated · 4 nodes · coordinator 8b1d2e3f · term 42 · map 12s old`; empty before an answer. */
  title: string;
  rows: ClusterNodeRowView[];
  /** In place of the rows while there is no answer to show: reading, or why it is unavailable. */
  message: Cell | null;
  /**
   * Under the rows: degraded mode (the store unreachable), unassigned shards, this node's firing lag, and a
   * failed poll while the rows are stale.
   */
  notes: Cell[];
}

/** The cluster view: what the latest `cluster.status` said, with ages grown by the time since it was read. */
export function clusterPanel(state: DashState, scroll: number): ClusterPanelView {
  const columns = clusterColumns(state.size.columns);
  const { status, readAt, unavailable } = state.cluster;
  if (status === null) {
    const message: Cell =
      unavailable === null
        ? { text: 'reading the cluster status…', tone: 'plain' }
        : { text: `cluster status unavailable: ${unavailable}`, tone: 'warn' };
    return { columns, title: '', rows: [], message, notes: [] };
  }
  // Ages are measured on the database's clock (`status.now`), so ours only adds the time since the answer.
  const sinceRead = Math.max(0, state.now - readAt);
  const ordered = orderNodes(status.nodes);
  const rows = ordered.slice(scroll, scroll + clusterRows(state.size)).map((node): ClusterNodeRowView => ({
    id: node.id,
    name: nodeName(node),
    host: node.hostname,
    state: node.alive ? { text: '● alive', tone: 'ok' } : { text: '✗ dead', tone: 'bad' },
    shards: String(node.shards),
    load: String(node.load),
    heartbeat: formatAge(status.now - node.heartbeatAt + sinceRead),
    version: node.version,
    labels: formatLabels(node.labels),
    dead: !node.alive,
  }));
  const notes: Cell[] = [];
  if (status.degraded !== undefined) notes.push({ text: status.degraded, tone: 'warn' });
  if (unavailable !== null)
    notes.push({
      text: `cluster status unavailable (last answer ${formatElapsed(sinceRead)} old): ${unavailable}`,
      tone: 'warn',
    });
  if (status.unassignedShards > 0)
    notes.push({
      text: `${status.unassignedShards} shard${status.unassignedShards === 1 ? '' : 's'} unassigned`,
      tone: 'bad',
    });
  notes.push({ text: firingLag(status.firingLagMs), tone: 'plain' });
  return {
    columns,
    title: clusterTitle(status, sinceRead, scroll, clusterRows(state.size)),
    rows,
    message: null,
    notes,
  };
}

function clusterTitle(status: ClusterStatus, sinceRead: number, scroll: number, height: number): string {
  const total = status.nodes.length;
  const nodes =
    total > height
      ? `nodes ${scroll + 1}–${Math.min(scroll + height, total)} of ${total}`
      : `${total} node${total === 1 ? '' : 's'}`;
  const coordinator =
    status.coordinator === null ? 'no coordinator' : `coordinator ${shortNodeId(status.coordinator)}`;
  const map =
    status.mapPublishedAt === null
      ? 'no map yet'
      : `map ${formatElapsed(status.now - status.mapPublishedAt + sinceRead)} old`;
  return [status.mode, nodes, coordinator, `term ${status.term}`, map].join(' · ');
}

function firingLag(lagMs: number | null): string {
  return lagMs === null
    ? 'firing lag: nothing has fired yet'
    : `firing lag ${formatDuration(lagMs)} (p99, last minute)`;
}

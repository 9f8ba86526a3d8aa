import { rendezvousOwner } from './rendezvous.js';
import { shardOf } from './shard.js';

export interface ClusterNodeLabels {
  id: string;
  /** The node's `--label KEY=VALUE`s, which jobs' `--on KEY=VALUE` constraints select. */
  labels: Record<string, string>;
}

/** Who fires which jobs, as published by the coordinator of `term`. */
export interface ShardMap {
  /** The coordinator lease's term when the map was published: the fencing token of every fire. */
  term: number;
  coordinator: string;
  /** Database time, in ms since the epoch. */
  publishedAt: number;
  /** The live nodes the map was computed over. */
  nodes: ClusterNodeLabels[];
  /** The owner of each shard, by shard index (null only when no node was live). */
  owners: (string | null)[];
}

/** The part of a map the coordinator computes; the rest is stamped when it is published. */
export type ShardAssignment = Pick<ShardMap, 'nodes' | 'owners'>;

/**
 * The node that fires `jobId`. Without a constraint, the owner of the job's shard in the map; with one, the
 * plain rendezvous winner of that shard among the nodes whose labels match every KEY=VALUE, so constrained
 * jobs spread over their eligible nodes. Each node works that owner out itself, so it stays plain rendezvous
 * hashing (see rendezvousOwner): nodes of two versions must agree on it during a rolling upgrade, or a job
 * that each thinks the other's would not fire.
 */
export function ownerOf(jobId: string, constraint: Record<string, string>, map: ShardMap): string | null {
  const shard = shardOf(jobId);
  if (Object.keys(constraint).length === 0) return map.owners[shard] ?? null;
  const eligible = map.nodes.filter((node) => labelsMatch(node.labels, constraint)).map((node) => node.id);
  return rendezvousOwner(shard, eligible);
}

/** Whether a node's labels satisfy every KEY=VALUE of a job's `--on`. */
export function labelsMatch(labels: Record<string, string>, constraint: Record<string, string>): boolean {
  return Object.entries(constraint).every(([key, value]) => labels[key] === value);
}

/** Whether two assignments give the same shards to the same nodes with the same labels. */
export function sameAssignment(a: ShardAssignment, b: ShardAssignment): boolean {
  return (
    a.owners.length === b.owners.length &&
    a.owners.every((owner, shard) => owner === b.owners[shard]) &&
    nodesKey(a.nodes) === nodesKey(b.nodes)
  );
}

function nodesKey(nodes: readonly ClusterNodeLabels[]): string {
  const canonical = nodes
    .map(
      (node) =>
        [node.id, Object.entries(node.labels).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))] as const,
    )
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return JSON.stringify(canonical);
}

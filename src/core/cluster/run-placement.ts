import type { Placement } from '../job.js';
import { labelsMatch, ownerOf, type ShardMap } from './shard-map.js';

/**
 * The nodes of `map` where a run of the job executes: for a `once` job the owner of its shard among the
 * nodes its `--on` selects, for an `every-host` job every node it selects. Empty when no node qualifies.
 */
export function runPlacement(jobId: string, placement: Placement, map: ShardMap): string[] {
  if (placement.mode === 'every-host')
    return map.nodes.filter((node) => labelsMatch(node.labels, placement.on)).map((node) => node.id);
  const owner = ownerOf(jobId, placement.on, map);
  return owner === null ? [] : [owner];
}

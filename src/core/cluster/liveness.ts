export interface HeartbeatingNode {
  id: string;
  /** The database's time of the node's last heartbeat, in ms since the epoch. */
  heartbeatAt: number;
}

/**
 * The nodes that heartbeated within `deadAfterMs` of `dbNow`. Both instants come from the database's
 * clock, so hosts whose clocks disagree still agree on who is alive.
 */
export function liveNodes<Node extends HeartbeatingNode>(
  nodes: readonly Node[],
  dbNow: number,
  deadAfterMs: number,
): Node[] {
  return nodes.filter((node) => dbNow - node.heartbeatAt < deadAfterMs);
}

/**
 * An unbroken run of one member's own heartbeats, on the database's clock: from the first of the run
 * (`since`) to the latest (`last`). While the database was unreachable or stalled, nobody could
 * heartbeat, so silence before `since` says nothing about a node.
 */
export interface HeartbeatStreak {
  since: number;
  last: number;
}

/**
 * The streak after a heartbeat stamped `stampedAt`: a gap longer than `maxGapMs` since the last one
 * (a failed or stalled round) starts a new streak there.
 */
export function extendStreak(
  streak: HeartbeatStreak | undefined,
  stampedAt: number,
  maxGapMs: number,
): HeartbeatStreak {
  if (streak === undefined || stampedAt - streak.last > maxGapMs || stampedAt < streak.last)
    return { since: stampedAt, last: stampedAt };
  return { since: streak.since, last: stampedAt };
}

/**
 * The nodes a coordinator gives shards to: the live ones, and those of the current map whose silence
 * the coordinator has not itself heard for `deadAfterMs`. After an outage of the database every
 * node's last heartbeat is old, though the nodes are alive and write one at their next round; judging
 * them dead at once would move their shards and record their running runs lost.
 */
export function assignableNodes<Node extends HeartbeatingNode>(
  nodes: readonly Node[],
  dbNow: number,
  deadAfterMs: number,
  heardSince: number,
  inCurrentMap: ReadonlySet<string>,
): Node[] {
  const stillInGrace = dbNow - heardSince < deadAfterMs;
  return nodes.filter(
    (node) => dbNow - node.heartbeatAt < deadAfterMs || (stillInGrace && inCurrentMap.has(node.id)),
  );
}

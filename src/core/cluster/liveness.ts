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

import {
  LeaseHolder,
  ShardLeases,
  type LeaseBounds,
  type LeaseGrant,
} from '../../../src/core/consensus/shard-leases.js';
import { randomInt, seededRandom } from './seeded-random.js';

export interface ShardLeaseSimulationOptions {
  seed: number;
  nodes?: number;
  shards?: number;
  bounds?: LeaseBounds;
  /** How far the clocks' rates really stray (default: the bound itself, the worst case allowed). */
  actualDrift?: number;
  /** Real milliseconds simulated, in steps of stepMs. */
  durationMs?: number;
  stepMs?: number;
}

export interface ShardLeaseSimulationResult {
  seed: number;
  violations: string[];
  grants: number;
  moves: number;
  leaderChanges: number;
  restarts: number;
  /** Steps in which some node held some shard: the run tested something. */
  heldSteps: number;
}

interface SimNode {
  id: string;
  up: boolean;
  rate: number;
  /** The node's monotonic clock: starts anywhere, runs at `rate`, starts over on a restart. */
  local: number;
  leases: ShardLeases;
  holder: LeaseHolder;
  incarnation: number;
  /** The committed entries this node has applied, by position in the log. */
  appliedUpTo: number;
  /** When (real time) each committed entry reaches this node. */
  arrivals: Map<number, number>;
}

interface Pending {
  grant: Omit<LeaseGrant, 'index'>;
  commitAt: number;
}

/**
 * Shard leases under a log reduced to what matters for them: grants proposed by the leader, committed
 * after a delay (or lost with a leader that falls, or committed as the next leader takes over, as Raft
 * may), applied on each node later still; clocks that run fast or slow within the bound; leaders that
 * change; nodes that restart with a new clock. After every step: no two nodes act on one shard.
 */
export function simulateShardLeases(options: ShardLeaseSimulationOptions): ShardLeaseSimulationResult {
  const random = seededRandom(options.seed);
  const bounds = options.bounds ?? { durationMs: 2_000, maxDrift: 0.05 };
  const drift = options.actualDrift ?? bounds.maxDrift;
  const stepMs = options.stepMs ?? 20;
  const durationMs = options.durationMs ?? 20_000;
  const shards = options.shards ?? 4;
  const rateOf = () => 1 - drift + random() * 2 * drift;
  const nodes: SimNode[] = Array.from({ length: options.nodes ?? 3 }, (_, i) => {
    const local = random() * 1e6;
    const id = `n${i + 1}`;
    return {
      id,
      up: true,
      rate: rateOf(),
      local,
      leases: new ShardLeases(bounds, local),
      holder: new LeaseHolder(id, '0', bounds),
      incarnation: 0,
      appliedUpTo: 0,
      arrivals: new Map(),
    };
  });
  const log: LeaseGrant[] = [];
  let pending: Pending[] = [];
  let leader: SimNode | null = nodes[0]!;
  const asks: { to: SimNode; from: SimNode; shard: number; ask: string; arriveAt: number }[] = [];
  const result: ShardLeaseSimulationResult = {
    seed: options.seed,
    violations: [],
    grants: 0,
    moves: 0,
    leaderChanges: 0,
    restarts: 0,
    heldSteps: 0,
  };

  const commit = (grant: Omit<LeaseGrant, 'index'>, now: number) => {
    const entry = { ...grant, index: log.length + 1 };
    log.push(entry);
    result.grants += 1;
    for (const node of nodes) node.arrivals.set(entry.index, now + randomInt(random, 0, 500));
  };
  const applyArrived = (node: SimNode, now: number, everything = false) => {
    while (node.appliedUpTo < log.length) {
      const entry = log[node.appliedUpTo]!;
      if (!everything && node.arrivals.get(entry.index)! > now) return;
      node.leases.apply(entry, node.local);
      node.holder.apply(entry);
      node.appliedUpTo += 1;
    }
  };

  for (let now = 0; now < durationMs; now += stepMs) {
    for (const node of nodes) node.local += stepMs * node.rate;

    // The log: commits due, then each node applies what reached it.
    for (const entry of pending.filter((p) => p.commitAt <= now)) commit(entry.grant, now);
    pending = pending.filter((p) => p.commitAt > now);
    for (const node of nodes) if (node.up) applyArrived(node, now);

    // Leadership moves now and then; what the old leader proposed is lost or committed as the new one
    // takes over (its first entry commits them), and the new one applies everything before it grants.
    if (random() < 0.004 || leader === null || !leader.up) {
      const candidates = nodes.filter((node) => node.up);
      for (const entry of pending) if (random() < 0.5) commit(entry.grant, now);
      pending = [];
      const next = candidates.length > 0 ? candidates[randomInt(random, 0, candidates.length - 1)]! : null;
      if (next !== leader) result.leaderChanges += 1;
      leader?.leases.abandonProposals();
      leader = next;
      if (leader) {
        applyArrived(leader, now, true);
        leader.leases.abandonProposals();
      }
    }

    // Restarts: a node stops, and comes back with a new clock, replaying the log.
    for (const node of nodes) {
      if (node.up && random() < 0.002) {
        node.up = false;
        result.restarts += 1;
      } else if (!node.up && random() < 0.02) {
        node.up = true;
        node.incarnation += 1;
        node.rate = rateOf();
        node.local = random() * 1e6;
        node.leases = new ShardLeases(bounds, node.local);
        node.holder = new LeaseHolder(node.id, String(node.incarnation), bounds);
        node.appliedUpTo = 0;
        applyArrived(node, now, true);
      }
    }

    // Nodes ask the leader for shards (their own again, to renew, or another's).
    for (const node of nodes) {
      if (!node.up || leader === null || random() > 0.05) continue;
      const shard = randomInt(random, 0, shards - 1);
      asks.push({
        to: leader,
        from: node,
        shard,
        ask: node.holder.ask(node.local),
        arriveAt: now + randomInt(random, 0, 100),
      });
    }
    for (const request of asks.filter((a) => a.arriveAt <= now)) {
      const { to, from, shard, ask } = request;
      if (to !== leader || !to.up) continue;
      if (!to.leases.mayGrant(shard, from.id, to.local)) continue;
      const before = to.leases.holderOf(shard);
      if (before !== null && before.holder !== from.id) result.moves += 1;
      to.leases.proposed(shard);
      pending.push({ grant: { shard, holder: from.id, ask }, commitAt: now + randomInt(random, 1, 200) });
    }
    asks.splice(0, asks.length, ...asks.filter((a) => a.arriveAt > now));

    // The property: at most one node acts on a shard at any instant.
    let held = false;
    for (let shard = 0; shard < shards; shard++) {
      const acting = nodes.filter((node) => node.up && node.holder.fenceFor(shard, node.local) !== null);
      if (acting.length > 0) held = true;
      if (acting.length > 1)
        result.violations.push(
          `${now} ms: shard ${shard} held by ${acting.map((node) => node.id).join(' and ')}`,
        );
    }
    if (held) result.heldSteps += 1;
  }
  return result;
}

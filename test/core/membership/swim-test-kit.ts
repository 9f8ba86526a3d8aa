import { SwimNode, type SwimConfig } from '../../../src/core/membership/swim-node.js';

/**
 * A SwimNode of five members a–e probing every 10 ticks, 5 for an ack, two helpers; with five members,
 * 30 ticks of suspicion once one other member confirms it (α = 3, so α − 2 = 1 expected), 180 while none
 * does (β = 6). Randomness is fixed, so runs repeat.
 */
export function swimNode(
  id: string,
  seeds = ['a', 'b', 'c', 'd', 'e'],
  config: Partial<SwimConfig> = {},
): SwimNode {
  return new SwimNode({
    id,
    seeds,
    probeTicks: 10,
    ackTimeoutTicks: 5,
    indirectProbes: 2,
    suspicionMultiplier: 3,
    random: () => 0,
    ...config,
  });
}

export function ticks(node: SwimNode, count: number): void {
  for (let tick = 0; tick < count; tick++) node.tick();
}

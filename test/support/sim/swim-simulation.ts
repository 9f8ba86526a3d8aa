import type { SwimMessage } from '../../../src/core/membership/swim-messages.js';
import { SwimNode } from '../../../src/core/membership/swim-node.js';
import { randomInt, seededRandom } from './seeded-random.js';

export interface SwimSimulationOptions {
  seed: number;
  nodes?: number;
  /** Ticks with loss, delay and crashes; then a quiet, lossless stretch in which views must settle. */
  faultyTicks?: number;
  quietTicks?: number;
  lossRate?: number;
  maxDelayTicks?: number;
  /** Per tick: chance one running node crashes (never more than `maxDown` at once), and a crashed one restarts. */
  crashRate?: number;
  restartRate?: number;
  maxDown?: number;
  /**
   * A member starved of CPU through the faulty stretch: each message to it waits up to this many ticks more
   * before it is handled (its ticks run on time, as a process's timers do while its socket queue backs up).
   */
  slow?: { id: string; maxDelayTicks: number };
  /** A member that crashes at this tick and stays down (besides the random crashes). */
  crash?: { id: string; atTick: number };
}

export interface SwimSimulationResult {
  seed: number;
  violations: string[];
  crashes: number;
  restarts: number;
  /** Ticks from a crash until every running node held the crashed node dead. */
  detectionTicks: number[];
  /** Ticks × viewers in which a node that never crashed (the slow one aside) was held dead. */
  falseDeaths: number;
  /** Ticks × viewers in which the slow member was held dead. */
  slowMemberDeaths: number;
  /** The highest local health multiplier any member reached. */
  maxLocalHealth: number;
}

const PROBE_TICKS = 10;
/** α and β (see SwimTiming): with 8 members, 50 ticks of suspicion once 3 others confirm it, 300 while none does. */
const SUSPICION_MULTIPLIER = 5;
const SUSPICION_MAX_MULTIPLIER = 6;

/**
 * Runs a SWIM group in virtual time under message loss, delay and crashes with restarts (a restarted
 * node starts afresh, as after a reboot), from one seed. Checks completeness (a crashed node is held
 * dead by every running node, within a bound) and, after a quiet stretch, that every running node is
 * alive in every running node's view.
 */
export function simulateSwim(options: SwimSimulationOptions): SwimSimulationResult {
  const random = seededRandom(options.seed);
  const ids = Array.from({ length: options.nodes ?? 8 }, (_, index) => `m${index + 1}`);
  const boot = (id: string) =>
    new SwimNode({
      id,
      seeds: ids,
      probeTicks: PROBE_TICKS,
      ackTimeoutTicks: 4,
      indirectProbes: 3,
      suspicionMultiplier: SUSPICION_MULTIPLIER,
      suspicionMaxMultiplier: SUSPICION_MAX_MULTIPLIER,
      random,
    });
  const nodes = new Map<string, SwimNode | null>(ids.map((id) => [id, boot(id)]));
  /** When each running node last started: one started after a crash detects it on its own (see merge). */
  const bootedAt = new Map<string, number>(ids.map((id) => [id, 0]));
  const crashedAt = new Map<string, number>();
  const everCrashed = new Set<string>();
  const result: SwimSimulationResult = {
    seed: options.seed,
    violations: [],
    crashes: 0,
    restarts: 0,
    detectionTicks: [],
    falseDeaths: 0,
    slowMemberDeaths: 0,
    maxLocalHealth: 0,
  };
  let inFlight: { deliverAt: number; message: SwimMessage }[] = [];
  let now = 0;
  // A crashed node is probed by someone within two passes of the round robin, suspected, declared dead
  // when its suspicion runs out (unconfirmed at worst), and the news reaches everyone within a few periods.
  const longestSuspicion = SUSPICION_MAX_MULTIPLIER * SUSPICION_MULTIPLIER * PROBE_TICKS;
  const detectionBound = 2 * ids.length * PROBE_TICKS + longestSuspicion + 20 * PROBE_TICKS;

  const running = () => ids.filter((id) => nodes.get(id));
  const flush = (node: SwimNode, faulty: boolean) => {
    for (const message of node.takeMessages()) {
      if (faulty && random() < (options.lossRate ?? 0.05)) continue;
      const delay = randomInt(random, 0, faulty ? (options.maxDelayTicks ?? 2) : 1);
      const starved = faulty && message.to === options.slow?.id;
      const handling = starved ? randomInt(random, 0, options.slow!.maxDelayTicks) : 0;
      inFlight.push({ deliverAt: now + delay + handling, message });
    }
  };

  const advance = (faulty: boolean) => {
    now += 1;
    if (faulty) injectFaults();
    for (const id of ids) {
      const node = nodes.get(id);
      if (!node) continue;
      node.tick();
      flush(node, faulty);
    }
    const due = inFlight.filter((item) => item.deliverAt <= now);
    inFlight = inFlight.filter((item) => item.deliverAt > now);
    for (const { message } of due) {
      const node = nodes.get(message.to);
      if (!node) continue;
      node.step(message);
      flush(node, faulty);
    }
    observe();
  };

  const crash = (id: string) => {
    nodes.set(id, null);
    crashedAt.set(id, now);
    everCrashed.add(id);
    result.crashes += 1;
  };

  const injectFaults = () => {
    if (options.crash?.atTick === now) crash(options.crash.id);
    const down = ids.length - running().length;
    for (const id of ids) {
      const node = nodes.get(id);
      if (node && down < (options.maxDown ?? 2) && random() < (options.crashRate ?? 0.002)) {
        crash(id);
        return;
      }
      if (!node && id !== options.crash?.id && random() < (options.restartRate ?? 0.002)) {
        nodes.set(id, boot(id));
        bootedAt.set(id, now);
        crashedAt.delete(id);
        result.restarts += 1;
      }
    }
  };

  const detected = new Set<string>();
  const observe = () => {
    const up = running();
    for (const [id, at] of crashedAt) {
      const key = `${id}@${at}`;
      if (detected.has(key)) continue;
      const unaware = up.filter((viewer) => nodes.get(viewer)!.stateOf(id) !== 'dead');
      if (unaware.length === 0) {
        detected.add(key);
        result.detectionTicks.push(now - at);
        continue;
      }
      // A node started after the crash takes a dead member it hears of as suspect, and waits out its own
      // suspicion (memberlist's rule): its bound runs from its start.
      const late = unaware.find((viewer) => now - Math.max(at, bootedAt.get(viewer)!) > detectionBound);
      if (late !== undefined)
        violate(
          `completeness: ${id}, down since tick ${at}, is not dead on ${late} (started at tick ${bootedAt.get(late)}) after ${now - at} ticks`,
        );
    }
    for (const viewer of up) {
      const view = nodes.get(viewer)!;
      result.maxLocalHealth = Math.max(result.maxLocalHealth, view.localHealth);
      for (const id of up) {
        if (everCrashed.has(id) || view.stateOf(id) !== 'dead') continue;
        if (id === options.slow?.id) result.slowMemberDeaths += 1;
        else result.falseDeaths += 1;
      }
    }
  };

  const violate = (what: string) => {
    if (!result.violations.includes(what)) result.violations.push(`tick ${now}: ${what}`);
  };

  for (let tick = 0; tick < (options.faultyTicks ?? 2_000) && result.violations.length === 0; tick++)
    advance(true);
  for (let tick = 0; tick < (options.quietTicks ?? 400) && result.violations.length === 0; tick++)
    advance(false);
  const up = running();
  for (const viewer of up)
    for (const id of up) {
      const state = nodes.get(viewer)!.stateOf(id);
      if (state !== 'alive')
        violate(`accuracy: ${viewer} holds running ${id} ${state} after the quiet stretch`);
    }
  return result;
}

import { describe, expect, it } from 'vitest';
import { seedsOf } from '../../support/sim/seed-range.js';
import { simulateSwim } from '../../support/sim/swim-simulation.js';
import type { SwimSimulationOptions, SwimSimulationResult } from '../../support/sim/swim-simulation.js';

const SEEDS = Number(process.env['SIM_SEEDS'] ?? 200);

function explore(options: Omit<SwimSimulationOptions, 'seed'>) {
  const results: SwimSimulationResult[] = [];
  for (const seed of seedsOf(SEEDS)) results.push(simulateSwim({ seed, ...options }));
  const detection = results.flatMap((result) => result.detectionTicks).sort((a, b) => a - b);
  return {
    failures: results.filter((result) => result.violations.length > 0),
    crashes: results.reduce((sum, result) => sum + result.crashes, 0),
    restarts: results.reduce((sum, result) => sum + result.restarts, 0),
    falseDeaths: results.reduce((sum, result) => sum + result.falseDeaths, 0),
    detectionP99: detection[Math.floor(detection.length * 0.99)] ?? 0,
    detected: detection.length,
  };
}

describe('SWIM under simulated faults', () => {
  it(`given ${SEEDS} seeds of 8 nodes with 5% loss, delays, crashes and restarts, every crashed node is held dead by all within the bound, and every running node is alive everywhere after a quiet stretch`, () => {
    const outcome = explore({ nodes: 8 });

    expect(outcome.failures.map((failure) => `seed ${failure.seed}: ${failure.violations[0]}`)).toEqual([]);
    expect(outcome.crashes).toBeGreaterThan(SEEDS);
    expect(outcome.restarts).toBeGreaterThan(SEEDS / 2);
    expect(outcome.detected).toBeGreaterThan(SEEDS / 2);
    // Suspicion (50 ticks) plus a probe period or two and the spread of the news.
    expect(outcome.detectionP99).toBeLessThan(200);
    // A node that never crashed may be held dead briefly (its refutation lost with 5% of messages), but
    // rarely: under one viewer-tick per run, of about 150,000 viewer-ticks each.
    expect(outcome.falseDeaths).toBeLessThan(SEEDS);
  }, 300_000); // a fixed amount of CPU, several times slower on a busy machine, which is no failure

  it(`given ${SEEDS} seeds of 8 nodes with 5% loss and one member starved of CPU (each message to it handled up to 8 probe periods late), no other member is ever held dead by anyone, and a member that crashes is held dead by all, the starved one included, within the bound`, () => {
    const outcome = explore({
      nodes: 8,
      crashRate: 0,
      slow: { id: 'm1', maxDelayTicks: 80 },
      crash: { id: 'm8', atTick: 1_000 },
    });

    expect(outcome.failures.map((failure) => `seed ${failure.seed}: ${failure.violations[0]}`)).toEqual([]);
    expect(outcome.detected).toBe(SEEDS);
    // Without Lifeguard the starved member suspects whomever it probes, and its suspicions run out before the
    // refutations reach it: it declares healthy members dead, and everyone believes it.
    expect(outcome.falseDeaths).toBe(0);
  }, 300_000);

  it('given a node restarted after another crashed (seed 5017: m5 starts 280 ticks after m8 went down), it holds the crashed one dead within the bound counted from its own start, having taken what the others told it as a suspicion of its own', () => {
    const run = simulateSwim({ seed: 5017, nodes: 8 });

    expect(run.violations).toEqual([]);
    // Detected everywhere later than the bound counts from the crash: the late starter waited out its suspicion.
    expect(Math.max(...run.detectionTicks)).toBeGreaterThan(660);
  });

  it('given a seed, replays the same run exactly', () => {
    expect(simulateSwim({ seed: 77 })).toEqual(simulateSwim({ seed: 77 }));
  });
});

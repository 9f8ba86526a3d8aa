import { describe, expect, it } from 'vitest';
import {
  simulateMemberLeases,
  type MemberLeaseSimulationResult,
} from '../../support/sim/member-lease-simulation.js';
import {
  RANDOM_SCENARIOS,
  SCRIPTED_SCENARIOS,
  type MemberLeaseScenario,
} from '../../support/sim/member-lease-scenarios.js';
import { FIRST_SEED } from '../../support/sim/seed-range.js';

/**
 * SIM_SEEDS=100000 explores further (npm run sim); the suite runs 150 per random scenario and 30 per
 * scripted one, 900 in all, plus the runs that check the simulation catches broken leases.
 */
const SEEDS = Number(process.env['SIM_SEEDS'] ?? 150);
/** A scripted scenario varies only in clock rates, delays and election timing: fewer seeds cover it. */
const SCRIPTED_SEEDS = Math.max(1, Math.round(SEEDS / 5));
const CUT_OFF = SCRIPTED_SCENARIOS['a member with runs going cut off for fifteen seconds']!;
/** A fixed amount of CPU (a few seconds a case on an idle core), several times that on a busy machine. */
const CASE_TIMEOUT_MS = 300_000;

/** From FIRST_SEED; a check that the simulation catches a broken rule runs its own fixed seeds (from 1). */
function explore(seeds: number, scenario: MemberLeaseScenario, firstSeed = FIRST_SEED) {
  const failing: string[] = [];
  const totals = {
    runsStarted: 0,
    runsKilled: 0,
    runsRefused: 0,
    runsStartedExpired: 0,
    dropsSafe: 0,
    crashes: 0,
  };
  for (let seed = firstSeed; seed < firstSeed + seeds; seed++) {
    const result: MemberLeaseSimulationResult = simulateMemberLeases({ seed, ...scenario });
    if (result.violations.length > 0) failing.push(`seed ${seed}: ${result.violations[0]}`);
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += result[key];
  }
  return { failing, ...totals };
}

describe('member leases on runs over real Raft hosts, simulated', () => {
  it.each(Object.entries(RANDOM_SCENARIOS))(
    `given %s (${SEEDS} seeds), no run of a member is alive when the majority may drop it, and Raft holds`,
    (_name, scenario) => {
      const { failing, runsStarted, runsKilled, dropsSafe } = explore(SEEDS, scenario);

      expect(failing).toEqual([]);
      // Not vacuous: members ran runs, lost their leases and killed them, and leaders got to drop members.
      expect(runsStarted).toBeGreaterThan(SEEDS * 20);
      expect(runsKilled).toBeGreaterThan(SEEDS / 10);
      expect(dropsSafe).toBeGreaterThan(SEEDS / 20);
    },
    CASE_TIMEOUT_MS,
  );

  it.each(Object.entries(SCRIPTED_SCENARIOS))(
    `given %s (${SCRIPTED_SEEDS} seeds), no run of a member is alive when the majority may drop it`,
    (_name, scenario) => {
      expect(explore(SCRIPTED_SEEDS, scenario).failing).toEqual([]);
    },
    CASE_TIMEOUT_MS,
  );

  it.each([['late messages (up to 1.5 s) that overtake one another', 1_639]])(
    'given %s, seed %i (once failing, found by npm run sim), holds',
    (name, seed) => {
      expect(simulateMemberLeases({ seed, ...RANDOM_SCENARIOS[name]! }).violations).toEqual([]);
    },
  );

  it('given a seed, replays the same run exactly', () => {
    const scenario = RANDOM_SCENARIOS['one-way cuts and flaky links that change often, with crashes']!;
    expect(simulateMemberLeases({ seed: 77, ...scenario })).toEqual(
      simulateMemberLeases({ seed: 77, ...scenario }),
    );
  });

  it('given members that keep their runs longer than the leader counts on, finds a run alive when the majority may drop its member', () => {
    const { failing } = explore(
      20,
      { ...CUT_OFF, memberLease: { durationMs: 7_000, stopMs: 3_350, maxDrift: 0.05 } },
      1,
    );

    expect(failing.length).toBeGreaterThan(0);
  });

  it('given a fire that reaches its member after its lease ran out, the member refuses its run; one started anyway (the daemon as it was) is killed by the lease’s next look', () => {
    const scenario = SCRIPTED_SCENARIOS['a member whose fire reaches it only after its lease ran out']!;
    const asItWas = explore(20, { ...scenario, startWhileExpired: true }, 1);
    const asItIs = explore(20, scenario, 1);

    expect(asItWas.runsStartedExpired).toBeGreaterThan(10);
    expect(asItWas.runsKilled).toBeGreaterThan(10);
    expect(asItWas.failing).toEqual([]);
    expect(asItIs.failing).toEqual([]);
    expect(asItIs.runsRefused).toBeGreaterThan(10);
    expect(asItIs.runsStartedExpired).toBe(0);
  });

  it('given clocks that stray beyond the bound the leases assume, finds a run alive when the majority may drop its member', () => {
    const { failing } = explore(20, { ...CUT_OFF, actualDrift: 0.5 }, 1);

    expect(failing.length).toBeGreaterThan(0);
  });
});

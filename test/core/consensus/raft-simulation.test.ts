import { describe, expect, it } from 'vitest';
import { simulateRaft } from '../../support/sim/raft-simulation.js';
import type { RaftSimulationOptions, RaftSimulationResult } from '../../support/sim/raft-simulation.js';

/** SIM_SEEDS=100000 explores further; the suite runs 500 per case, 1,600 seeds in all. */
const SEEDS = Number(process.env['SIM_SEEDS'] ?? 500);
/** A node crashes every 20 ticks on average and is back within two: elections are cut short often. */
const CRASH_HEAVY = { crashRate: 0.05, restartRate: 0.5, partitionRate: 0.05 };

function explore(seeds: number, options: Omit<RaftSimulationOptions, 'seed'>) {
  const failures: RaftSimulationResult[] = [];
  let acknowledged = 0;
  let crashes = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const result = simulateRaft({ seed, ...options });
    acknowledged += result.acknowledged;
    crashes += result.crashes;
    if (result.violations.length > 0) failures.push(result);
  }
  return { failures, acknowledged, crashes };
}

describe('Raft under simulated faults', () => {
  it.each([
    [`3 voters, ${SEEDS} seeds of loss, duplication, delay, partitions, crashes`, { voters: 3 }],
    [`5 voters, ${SEEDS} seeds of loss, duplication, delay, partitions, crashes`, { voters: 5 }],
    [`3 voters, ${SEEDS} seeds of crashes in the middle of elections`, { voters: 3, ...CRASH_HEAVY }],
    [
      `3 voters without pre-vote or check-quorum, ${SEEDS} seeds`,
      { voters: 3, preVote: false, checkQuorum: false },
    ],
  ] as const)(
    'given %s, no safety property is ever violated and every committed entry reaches every node after healing',
    (_title, options) => {
      const { failures, acknowledged, crashes } = explore(SEEDS, options);

      expect(failures.map((failure) => `seed ${failure.seed}: ${failure.violations[0]}`)).toEqual([]);
      // The runs did something: entries were committed and nodes crashed along the way.
      expect(acknowledged).toBeGreaterThan(SEEDS * 10);
      expect(crashes).toBeGreaterThan(SEEDS / 2);
    },
  );

  it('given a seed, replays the same run exactly', () => {
    expect(simulateRaft({ seed: 4242, voters: 5 })).toEqual(simulateRaft({ seed: 4242, voters: 5 }));
  });

  it('given a host that forgets its vote on restart, finds two leaders in one term', () => {
    const { failures } = explore(100, { voters: 3, forgetVoteOnRestart: true, ...CRASH_HEAVY });

    const violations = failures.flatMap((failure) => failure.violations);
    expect(violations.some((violation) => violation.includes('election safety'))).toBe(true);
  });
});

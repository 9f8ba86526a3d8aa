import { describe, expect, it } from 'vitest';
import { ELECTION_TICKS, simulateRaft } from '../../support/sim/raft-simulation.js';
import type { RaftSimulationOptions, RaftSimulationResult } from '../../support/sim/raft-simulation.js';
import { seedsOf } from '../../support/sim/seed-range.js';

/** SIM_SEEDS=100000 explores further (npm run sim); the suite runs 500 per case (100 with seven hosts), 3,600 in all. */
const SEEDS = Number(process.env['SIM_SEEDS'] ?? 500);
/** A node crashes every 20 ticks on average and is back within two: elections are cut short often. */
const CRASH_HEAVY = { crashRate: 0.05, restartRate: 0.5, partitionRate: 0.05 };
/**
 * A case is a fixed amount of CPU (about 10 s on an idle core); on a machine busy with other work it can
 * take several times that, which is no failure.
 */
const CASE_TIMEOUT_MS = 300_000;

/** Seven hosts cost about twice as much a seed: a fifth as many runs (the suite still finds a missing rule). */
const SEVEN_SEEDS = Math.max(1, Math.round(SEEDS / 5));

const CASES: [string, Omit<RaftSimulationOptions, 'seed'>, number][] = [
  [`3 voters, ${SEEDS} seeds of loss, duplication, delay, partitions, crashes`, { voters: 3 }, SEEDS],
  [`5 voters, ${SEEDS} seeds of loss, duplication, delay, partitions, crashes`, { voters: 5 }, SEEDS],
  [`3 voters, ${SEEDS} seeds of crashes in the middle of elections`, { voters: 3, ...CRASH_HEAVY }, SEEDS],
  [
    `3 voters of 5 hosts adding and removing voters one at a time, handing leadership over, ${SEEDS} seeds`,
    { voters: 3, spares: 2, changeRate: 0.03, transferRate: 0.01 },
    SEEDS,
  ],
  [
    `3 voters of 5 hosts changing voters and handing leadership over, 2 of an older build, ${SEEDS} seeds`,
    { voters: 3, spares: 2, changeRate: 0.03, transferRate: 0.01, olderBuilds: 2 },
    SEEDS,
  ],
  [
    `3 voters, ${SEEDS} seeds of the majority lost for good and the survivor recovered by force`,
    { voters: 3, loseForGood: 2 },
    SEEDS,
  ],
  [
    `7 voters, ${SEVEN_SEEDS} seeds of 4 lost for good and the 3 survivors recovered by force`,
    { voters: 7, loseForGood: 4 },
    SEVEN_SEEDS,
  ],
  [
    `3 voters without pre-vote, check-quorum or compaction, ${SEEDS} seeds`,
    { voters: 3, preVote: false, checkQuorum: false, compactEvery: 0 },
    SEEDS,
  ],
];

function explore(seeds: number, options: Omit<RaftSimulationOptions, 'seed'>) {
  const failures: RaftSimulationResult[] = [];
  let acknowledged = 0;
  let crashes = 0;
  let snapshotsInstalled = 0;
  let votersChanged = 0;
  let afterRecovery = 0;
  let timeoutNows = 0;
  for (const seed of seedsOf(seeds)) {
    const result = simulateRaft({ seed, ...options });
    timeoutNows += result.timeoutNows;
    acknowledged += result.acknowledged;
    afterRecovery += result.acknowledgedAfterRecovery;
    crashes += result.crashes;
    snapshotsInstalled += result.snapshotsInstalled;
    votersChanged += result.votersChanged;
    if (result.violations.length > 0) failures.push(result);
  }
  return { failures, acknowledged, crashes, snapshotsInstalled, votersChanged, afterRecovery, timeoutNows };
}

describe('Raft under simulated faults', () => {
  it.each(CASES)(
    'given %s, no safety property is ever violated and every committed entry reaches every node after healing',
    (_title, options, seeds) => {
      const {
        failures,
        acknowledged,
        crashes,
        snapshotsInstalled,
        votersChanged,
        afterRecovery,
        timeoutNows,
      } = explore(seeds, options);

      expect(failures.map((failure) => `seed ${failure.seed}: ${failure.violations[0]}`)).toEqual([]);
      // The runs did something: entries were committed and nodes crashed along the way.
      expect(acknowledged).toBeGreaterThan(seeds * 10);
      expect(crashes).toBeGreaterThan(seeds / 2);
      // Logs were compacted, and followers that fell behind caught up from a leader's snapshot.
      if (options.compactEvery !== 0) expect(snapshotsInstalled).toBeGreaterThan(seeds / 10);
      if (options.changeRate) expect(votersChanged).toBeGreaterThan(seeds);
      // Leaders handed their leadership over (to newer builds only, or the run has a violation).
      if (options.transferRate) expect(timeoutNows).toBeGreaterThan(seeds / 2);
      // The survivors of a forced recovery committed new entries (a run without any is a violation).
      if (options.loseForGood) expect(afterRecovery).toBeGreaterThan(seeds * 10);
    },
    CASE_TIMEOUT_MS,
  );

  it('given a network that loses nothing and nodes that never crash, a leader that removes itself has a successor within an election timeout or two, never the 10 to 20 ticks of a timeout each time', () => {
    const quiet = { lossRate: 0, duplicateRate: 0, partitionRate: 0, crashRate: 0 };
    const ticks: number[] = [];
    for (const seed of seedsOf(SEVEN_SEEDS))
      ticks.push(...simulateRaft({ seed, voters: 3, spares: 2, changeRate: 0.05, ...quiet }).successionTicks);

    // Messages take up to 3 ticks: a timeout-now, the votes asked and granted, and a tail of the log first.
    expect(ticks.length).toBeGreaterThan(SEVEN_SEEDS);
    expect(Math.max(...ticks)).toBeLessThanOrEqual(2 * ELECTION_TICKS);
    expect(ticks.reduce((sum, each) => sum + each, 0) / ticks.length).toBeLessThan(ELECTION_TICKS);
  });

  it('given a seed, replays the same run exactly', () => {
    expect(simulateRaft({ seed: 4242, voters: 5 })).toEqual(simulateRaft({ seed: 4242, voters: 5 }));
  });

  it('given a host that forgets its vote on restart, finds two leaders in one term', () => {
    const { failures } = explore(400, { voters: 3, forgetVoteOnRestart: true, ...CRASH_HEAVY });

    const violations = failures.flatMap((failure) => failure.violations);
    expect(violations.some((violation) => violation.includes('election safety'))).toBe(true);
  });
});

/**
 * The cases the simulation test files run (test/core/consensus/*-simulation.test.ts and
 * test/core/membership/swim-simulation.test.ts), with the weight each case has in the suite's seed count:
 * a simulation's seeds are split over its cases as the suite splits them. Each case starts at the seed its
 * test starts at, so a seed that fails here replays in the suite's terms. Keep in step with the test files.
 * `sims` is the bundled module (lib/simulation-bundle.js).
 */
export function simulationCases(sims) {
  const crashHeavy = { crashRate: 0.05, restartRate: 0.5, partitionRate: 0.05 };
  const raft = [
    ['3 voters, loss, duplication, delay, partitions, crashes', 5, { voters: 3 }],
    ['5 voters, loss, duplication, delay, partitions, crashes', 5, { voters: 5 }],
    ['3 voters, crashes in the middle of elections', 5, { voters: 3, ...crashHeavy }],
    [
      '3 voters of 5 hosts, voters added and removed, leadership handed over',
      5,
      { voters: 3, spares: 2, changeRate: 0.03, transferRate: 0.01 },
    ],
    [
      '3 voters of 5 hosts, voters changed, leadership handed over, 2 of an older build',
      5,
      { voters: 3, spares: 2, changeRate: 0.03, transferRate: 0.01, olderBuilds: 2 },
    ],
    ['3 voters, majority lost for good, survivor recovered by force', 5, { voters: 3, loseForGood: 2 }],
    ['7 voters, 4 lost for good, 3 survivors recovered by force', 1, { voters: 7, loseForGood: 4 }],
    [
      '3 voters without pre-vote, check-quorum or compaction',
      5,
      { voters: 3, preVote: false, checkQuorum: false, compactEvery: 0 },
    ],
  ].map(([name, weight, options]) => ({
    simulation: 'raft',
    name,
    weight,
    firstSeed: 1,
    run: (seed) => sims.simulateRaft({ seed, ...options }),
  }));
  const swim = [
    ['8 nodes, 5% loss, delays, crashes and restarts', { nodes: 8 }],
    [
      '8 nodes, 5% loss, one member starved of CPU, one crash',
      { nodes: 8, crashRate: 0, slow: { id: 'm1', maxDelayTicks: 80 }, crash: { id: 'm8', atTick: 1_000 } },
    ],
  ].map(([name, options]) => ({
    simulation: 'swim',
    name,
    weight: 1,
    firstSeed: 1,
    run: (seed) => sims.simulateSwim({ seed, ...options }),
  }));
  const shardLeases = [
    {
      simulation: 'shard-leases',
      name: '3 nodes, drifting clocks, delayed commits, leader changes, restarts',
      weight: 10,
      firstSeed: 1,
      run: (seed) => sims.simulateShardLeases({ seed, durationMs: 10_000 }),
    },
    {
      simulation: 'shard-leases',
      name: '5 nodes, 8 shards, 1 s leases',
      weight: 3,
      firstSeed: 10_000,
      run: (seed) =>
        sims.simulateShardLeases({
          seed,
          nodes: 5,
          shards: 8,
          bounds: { durationMs: 1_000, maxDrift: 0.1 },
          durationMs: 10_000,
        }),
    },
  ];
  const memberLeases = [
    ...Object.entries(sims.RANDOM_SCENARIOS).map(([name, scenario]) => ({ name, scenario, weight: 5 })),
    ...Object.entries(sims.SCRIPTED_SCENARIOS).map(([name, scenario]) => ({ name, scenario, weight: 1 })),
  ].map(({ name, scenario, weight }) => ({
    simulation: 'member-leases',
    name,
    weight,
    firstSeed: 1,
    run: (seed) => sims.simulateMemberLeases({ seed, ...scenario }),
  }));
  return [...raft, ...swim, ...shardLeases, ...memberLeases];
}

/**
 * `total` seeds split evenly over the simulations, and each simulation's share over its cases by weight
 * (largest remainders, so the counts add up exactly). Returns the cases with `seeds` set.
 */
export function splitSeeds(cases, total) {
  const simulations = [...new Set(cases.map((one) => one.simulation))];
  return simulations.flatMap((simulation, index) => {
    const share = Math.floor(total / simulations.length) + (index < total % simulations.length ? 1 : 0);
    const mine = cases.filter((one) => one.simulation === simulation);
    const weights = mine.reduce((sum, one) => sum + one.weight, 0);
    const exact = mine.map((one) => (share * one.weight) / weights);
    const seeds = exact.map(Math.floor);
    let left = share - seeds.reduce((sum, count) => sum + count, 0);
    const byRemainder = exact.map((value, at) => [value - Math.floor(value), at]).sort((a, b) => b[0] - a[0]);
    for (const [, at] of byRemainder) if (left-- > 0) seeds[at] += 1;
    return mine.map((one, at) => ({ ...one, seeds: seeds[at] }));
  });
}

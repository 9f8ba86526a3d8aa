// `npm run sim -- --seeds N [--from K]`: explores N seeds per case of the deterministic simulations (default
// 10,000), from seed K (default 1: the suite's seeds and on; a higher K explores seeds no run has before),
// through the same test files the suite runs with fewer. A failing seed is named and replays exactly.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);

/** The whole number after `flag`, or `fallback` when the flag is absent; exits with a hint when it is not one. */
function wholeNumber(flag, fallback, example) {
  const at = args.indexOf(flag);
  if (at === -1) return fallback;
  const value = Number(args[at + 1]);
  if (Number.isInteger(value) && value >= 1) return value;
  console.error(`${flag} needs a whole number from 1, e.g. npm run sim -- ${flag} ${example}`);
  process.exit(2);
}

const seeds = wholeNumber('--seeds', 10_000, '100000');
const firstSeed = wholeNumber('--from', 1, '1000001');
const result = spawnSync(
  'npx',
  [
    'vitest',
    'run',
    'test/core/consensus/raft-simulation.test.ts',
    'test/core/membership/swim-simulation.test.ts',
    'test/core/consensus/shard-lease-simulation.test.ts',
    'test/core/consensus/member-lease-simulation.test.ts',
    '--testTimeout=0',
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, SIM_SEEDS: String(seeds), SIM_FIRST_SEED: String(firstSeed) },
  },
);
process.exit(result.status ?? 1);

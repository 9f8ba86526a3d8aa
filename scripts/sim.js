// `npm run sim -- --seeds N`: explores N seeds per case of the deterministic simulations (default 10,000),
// through the same test file the suite runs with fewer. A failing seed is named and replays exactly.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const at = args.indexOf('--seeds');
const seeds = at === -1 ? 10_000 : Number(args[at + 1]);
if (!Number.isInteger(seeds) || seeds < 1) {
  console.error('--seeds needs a whole number of seeds, e.g. npm run sim -- --seeds 100000');
  process.exit(2);
}
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
    env: { ...process.env, SIM_SEEDS: String(seeds) },
  },
);
process.exit(result.status ?? 1);

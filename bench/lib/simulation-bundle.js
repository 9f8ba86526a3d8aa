import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from './paths.js';

/**
 * The deterministic simulations live in test/support/sim as TypeScript, beside the src/core code they
 * drive; dist/ has neither. esbuild (a devDependency) bundles them into one ES module, so plain Node
 * processes can run them without vitest. Packages stay imports, resolved from the repository's
 * node_modules: the module is written under .bench-out/ (git-ignored). Returns its path and a remover.
 */
export async function bundleSimulations() {
  const parent = path.join(REPO_ROOT, '.bench-out');
  fs.mkdirSync(parent, { recursive: true });
  const dir = fs.mkdtempSync(path.join(parent, 'simulations-'));
  const outfile = path.join(dir, 'simulations.mjs');
  await build({
    stdin: {
      contents: [
        "export { simulateRaft } from './test/support/sim/raft-simulation.js';",
        "export { simulateSwim } from './test/support/sim/swim-simulation.js';",
        "export { simulateShardLeases } from './test/support/sim/shard-lease-simulation.js';",
        "export { simulateMemberLeases } from './test/support/sim/member-lease-simulation.js';",
        "export { RANDOM_SCENARIOS, SCRIPTED_SCENARIOS } from './test/support/sim/member-lease-scenarios.js';",
      ].join('\n'),
      resolveDir: REPO_ROOT,
      loader: 'ts',
    },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  return { file: outfile, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

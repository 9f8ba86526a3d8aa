import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from './paths.js';

/**
 * Code of the test suite's support (test/support, TypeScript) for a benchmark, instead of a copy of it:
 * the deterministic simulations (beside the src/core code they drive; dist/ has neither) and the network
 * namespaces of NetnsLab. esbuild (a devDependency) bundles `exports` (lines of `export ... from
 * './test/support/...'`, from the repository root) into one ES module that plain Node runs. Packages stay
 * imports, resolved from the repository's node_modules: the module is written under .bench-out/
 * (git-ignored). Returns its path and a remover.
 */
export async function bundleTestSupport(name, exports) {
  const parent = path.join(REPO_ROOT, '.bench-out');
  fs.mkdirSync(parent, { recursive: true });
  const dir = fs.mkdtempSync(path.join(parent, `${name}-`));
  const outfile = path.join(dir, `${name}.mjs`);
  await build({
    stdin: { contents: exports.join('\n'), resolveDir: REPO_ROOT, loader: 'ts' },
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

/** The four simulations of peer mode and the member-lease scenarios. */
export function bundleSimulations() {
  return bundleTestSupport('simulations', [
    "export { simulateRaft } from './test/support/sim/raft-simulation.js';",
    "export { simulateSwim } from './test/support/sim/swim-simulation.js';",
    "export { simulateShardLeases } from './test/support/sim/shard-lease-simulation.js';",
    "export { simulateMemberLeases } from './test/support/sim/member-lease-simulation.js';",
    "export { RANDOM_SCENARIOS, SCRIPTED_SCENARIOS } from './test/support/sim/member-lease-scenarios.js';",
  ]);
}

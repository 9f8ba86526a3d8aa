// A child of bench/simulation.js: runs the seed ranges it is sent, one at a time, and answers each with
// the seeds run, the failing ones and the sums of every numeric figure of the results.
// argv[2]: the bundled simulations (lib/simulation-bundle.js).
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { simulationCases } from './simulation-cases.js';

const sims = await import(pathToFileURL(process.argv[2]).href);
const cases = simulationCases(sims);
/** Failing seeds sent back per range; all are counted. */
const FAILURES_KEPT = 20;

process.on('message', ({ caseIndex, from, to }) => {
  const started = performance.now();
  const totals = {};
  const failing = [];
  let failingSeeds = 0;
  let violations = 0;
  for (let seed = from; seed < to; seed++) {
    const result = cases[caseIndex].run(seed);
    if (result.violations.length > 0) {
      failingSeeds += 1;
      violations += result.violations.length;
      if (failing.length < FAILURES_KEPT) failing.push(`seed ${seed}: ${result.violations[0]}`);
    }
    for (const [key, value] of Object.entries(result)) {
      if (key !== 'seed' && typeof value === 'number') totals[key] = (totals[key] ?? 0) + value;
    }
  }
  process.send({
    caseIndex,
    seeds: to - from,
    failingSeeds,
    violations,
    failing,
    totals,
    cpuMs: performance.now() - started,
  });
});
process.send({ ready: true });

import fc from 'fast-check';

/** Runs per property in `npm test`, where FUZZ_RUNS is not set. */
const SUITE_RUNS = 100;

/**
 * How hard the properties in test/fuzz try. `npm test` runs each a modest, fixed number of times so the suite
 * stays fast; `npm run fuzz` sets FUZZ_RUNS much higher. FUZZ_SEED (with FUZZ_PATH) replays a failure: fast-check
 * prints both in the message of every failing property.
 */
function readFuzzEnv(env: NodeJS.ProcessEnv): { runs: number; seed?: number; path?: string } {
  const runs = env.FUZZ_RUNS ? Number(env.FUZZ_RUNS) : SUITE_RUNS;
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`FUZZ_RUNS must be a whole number of 1 or more, not "${env.FUZZ_RUNS}"`);
  const seed = env.FUZZ_SEED ? Number(env.FUZZ_SEED) : undefined;
  if (seed !== undefined && !Number.isInteger(seed))
    throw new Error(`FUZZ_SEED must be the integer seed a failing property printed, not "${env.FUZZ_SEED}"`);
  return { runs, ...(seed === undefined ? {} : { seed }), ...(env.FUZZ_PATH ? { path: env.FUZZ_PATH } : {}) };
}

const fuzzEnv = readFuzzEnv(process.env);

// Every test/fuzz file imports this module, so these settings hold for each property in it.
fc.configureGlobal({
  numRuns: fuzzEnv.runs,
  ...(fuzzEnv.seed === undefined ? {} : { seed: fuzzEnv.seed }),
  ...(fuzzEnv.path === undefined ? {} : { path: fuzzEnv.path }),
});

/**
 * Runs for a property that is costly per run (a live daemon, a subprocess): `suiteRuns` in `npm test`, and
 * scaled up by the same factor as every other property under `npm run fuzz`.
 */
export function costlyRuns(suiteRuns: number): number {
  return Math.max(1, Math.round((suiteRuns * fuzzEnv.runs) / SUITE_RUNS));
}

/**
 * Knobs, all by environment variable so `npm run bench` needs no arguments:
 *   BENCH_QUICK=1   smaller counts and shorter windows (a smoke run of about a minute)
 *   BENCH_REPS=N    repetitions of the cheap measurements (default 3, quick 1)
 * and one BENCH_<NAME> per count, listed where each benchmark reads it.
 */
export const QUICK = process.env.BENCH_QUICK === '1' || process.env.BENCH_QUICK === 'true';

/** An integer knob: `BENCH_<name>` if set, else the full or the quick default. */
export function knob(name, full, quick = full) {
  const raw = process.env[`BENCH_${name}`];
  if (raw === undefined || raw === '') return QUICK ? quick : full;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`BENCH_${name} must be a number, got "${raw}"`);
  return value;
}

export const REPS = knob('REPS', 3, 1);

import { SchedError } from '../core/errors.js';

/**
 * Splits a command line at the first `--`: what comes before is sched's own flags and arguments,
 * what comes after is the job's command, taken verbatim. oclif's parser does stop at `--`, but it
 * returns the leftovers re-sorted by their first position in the whole argv, which scrambles a
 * command that repeats a word used earlier (`--every 1s -- echo 1s`), so we cut before parsing.
 */
export interface SplitArgv {
  own: string[];
  command: string[] | undefined;
}

export function splitAtDoubleDash(argv: readonly string[]): SplitArgv {
  const separator = argv.indexOf('--');
  if (separator === -1) return { own: [...argv], command: undefined };
  return { own: argv.slice(0, separator), command: argv.slice(separator + 1) };
}

/**
 * Commands that take a job's command are not strict, so oclif lets stray words through; we reject
 * them here with a hint about `--`, which is almost always what was meant.
 */
export function assertNoStrayArguments(
  argv: readonly unknown[],
  declaredCount: number,
  example: string,
): void {
  const stray = argv.slice(declaredCount);
  if (stray.length === 0) return;
  throw new SchedError(
    'VALIDATION_FAILED',
    `Unexpected argument${stray.length === 1 ? '' : 's'}: ${stray.join(' ')}.`,
    {
      hint: `Put the job's command after "--", for example: ${example}`,
      details: { arguments: stray.map(String) },
    },
  );
}

import { SchedError } from '../core/errors.js';

/**
 * Turns repeated `--env K=V` / `--label K=V` values into a record. The value may itself contain `=`
 * (`--env OPTS=a=b`), so only the first one splits; a later repeat of a key wins, as in a shell.
 */
export function parseKeyValuePairs(
  pairs: readonly string[] | undefined,
  flag: string,
): Record<string, string> | undefined {
  if (!pairs || pairs.length === 0) return undefined;
  const record: Record<string, string> = {};
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    if (separator <= 0) {
      const problem = separator === 0 ? 'has an empty key' : 'is missing "="';
      throw new SchedError('VALIDATION_FAILED', `--${flag} "${pair}" ${problem}.`, {
        hint: `Write it as KEY=VALUE, for example --${flag} team=ops.`,
        details: { flag, value: pair },
      });
    }
    record[pair.slice(0, separator)] = pair.slice(separator + 1);
  }
  return record;
}

import type { CommandTarget } from '../../core/job.js';

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one word so that a POSIX shell reads it back unchanged. */
export function shellQuote(word: string): string {
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export function quoteArgv(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

/** What the job runs, as the user would type it again. */
export function describeCommand(target: CommandTarget): string {
  if (target.argv) return quoteArgv(target.argv);
  return target.shell ?? '';
}

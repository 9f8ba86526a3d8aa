import { looksLikeId } from './id-format.js';
import { inputError } from './input-error.js';

const CURSOR_HINT =
  'Pass back the --cursor the previous page printed at its end (or its nextCursor, with --json), ' +
  'or leave out --cursor to start from the first page.';

/** A listing paged by id resumes after the last id of the previous page; anything else was never handed out. */
export function checkIdCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined || looksLikeId(cursor)) return cursor;
  throw invalidCursor(cursor);
}

/** The occurrence ledger resumes before the scheduled instant (epoch ms) of the previous page's last entry. */
export function instantCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  if (/^\d{1,16}$/.test(cursor)) return Number(cursor);
  throw invalidCursor(cursor);
}

function invalidCursor(cursor: string) {
  return inputError('VALIDATION_FAILED', `Invalid cursor "${cursor}": no listing gave it out.`, CURSOR_HINT, {
    cursor,
  });
}

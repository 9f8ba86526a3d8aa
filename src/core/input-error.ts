import { SchedError, type ErrorCode } from './errors.js';

/** A refusal of what the user typed: a stable code, one sentence, and a hint saying what to give instead. */
export function inputError(
  code: ErrorCode,
  message: string,
  hint: string,
  details: Record<string, unknown> = {},
): SchedError {
  return new SchedError(code, message, { hint, details });
}

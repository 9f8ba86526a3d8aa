import { formatDuration, parseDuration } from './duration.js';
import { inputError } from './input-error.js';

// Node timers overflow above 2^31-1 ms (about 24.8 days) and would fire at once, so no wait sched
// arms (a timeout, a retry's delay, a breaker's cool-down) may be longer.
export const MAX_TIMER_MS = 24 * 86_400_000;

export interface DurationRule {
  /** How the message names the value, capitalised: `Timeout`, `Backoff`. */
  label: string;
  /** Whether zero is a meaningful value (retry at once) or a mistake (a timeout of nothing). */
  allowZero: boolean;
  /** What to do instead when the value is out of range. */
  hint: string;
}

/** Parses a duration and keeps it within what a timer can wait. */
export function parseBoundedDuration(text: string, rule: DurationRule): number {
  const ms = parseDuration(text, rule.label.toLowerCase());
  if (ms <= 0 && !rule.allowZero)
    throw inputError('VALIDATION_FAILED', `${rule.label} "${text}" must be longer than zero.`, rule.hint, {
      value: text,
    });
  if (ms > MAX_TIMER_MS) {
    throw inputError(
      'VALIDATION_FAILED',
      `${rule.label} "${text}" is too long; the longest is ${formatDuration(MAX_TIMER_MS)}.`,
      rule.hint,
      { value: text },
    );
  }
  return ms;
}

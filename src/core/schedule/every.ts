import { formatDuration, parseDuration } from '../duration.js';
import { SchedError, isSchedError } from '../errors.js';

const MIN_INTERVAL_MS = 1_000;
// Far beyond any sensible interval, and it keeps anchor + k * interval a safe integer for centuries.
const MAX_INTERVAL_MS = 3_650 * 86_400_000;

const EVERY_HINT =
  'Write an interval of at least 1s, such as 30s, 5m, 1h30m or 2d (units: ms, s, m, h, d, w).';

/** Parses `--every` text into an interval in milliseconds. */
export function parseEvery(text: string): number {
  let intervalMs: number;
  try {
    intervalMs = parseDuration(text, 'interval');
  } catch (error) {
    if (!isSchedError(error)) throw error;
    throw new SchedError('INVALID_SCHEDULE', `Invalid interval "${text}".`, {
      hint: EVERY_HINT,
      details: { value: text },
    });
  }
  if (intervalMs < MIN_INTERVAL_MS) {
    throw new SchedError('INVALID_SCHEDULE', `Interval "${text}" is too short; the shortest is 1s.`, {
      hint: EVERY_HINT,
      details: { value: text, intervalMs },
    });
  }
  if (intervalMs > MAX_INTERVAL_MS) {
    throw new SchedError(
      'INVALID_SCHEDULE',
      `Interval "${text}" is too long; the longest is ${formatDuration(MAX_INTERVAL_MS)}.`,
      {
        hint: 'For rare jobs use a cron expression, such as "0 0 1 1 *" for every 1 January.',
        details: { value: text, intervalMs },
      },
    );
  }
  return intervalMs;
}

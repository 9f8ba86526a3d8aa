import { formatDuration } from '../../core/duration.js';
import { formatFireTime } from './fire-time.js';
import { zonedParts } from '../../core/zoned-parts.js';
import { formatSpreadOffset } from './time-policy.js';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** One occurrence as `sched next` lists it. */
export interface OccurrenceLine {
  at: number;
  /** The local wall time it stands for, ISO without offset (for a skipped one, a time that did not exist). */
  wall: string;
  fires: boolean;
  skipped: boolean;
  /** The `--explain` text, or null. */
  explanation: string | null;
}

/** What moves a job's start away from its instant: a fixed spread offset and a random jitter bound. */
export interface StartShift {
  spreadOffsetMs: number | null;
  jitterMs: number | null;
}

/**
 * The lines of one occurrence: the instant as `formatFireTime` shows it (or, for a wall time the clocks
 * skipped, that wall time, which has no instant), `not run` when the DST policy passes it over, the planned
 * start when the job has a spread or jitter, and the explanation on an indented line below.
 */
export function formatOccurrenceLines(line: OccurrenceLine, zone: string, shift: StartShift): string[] {
  const head = line.skipped ? `${wallText(line.wall)} (no such time)` : formatFireTime(line.at, zone);
  const tail = line.fires ? startText(line.at, zone, shift) : '  not run';
  const lines = [`${head}${tail}`];
  if (line.explanation !== null) lines.push(`  ${line.explanation}`);
  return lines;
}

/** `  starts 09:02:13 (+2m13s spread) + up to 30s jitter`, or '' when the job starts at its instants. */
export function startText(at: number, zone: string, shift: StartShift): string {
  const parts: string[] = [];
  const offset = shift.spreadOffsetMs;
  if (offset !== null) {
    const start = at + offset;
    const p = zonedParts(start, zone);
    const sameDay = zonedParts(at, zone).day === p.day;
    const date = sameDay ? '' : `${p.year}-${p.month}-${p.day} `;
    parts.push(`starts ${date}${p.hour}:${p.minute}:${p.second} (+${formatSpreadOffset(offset)} spread)`);
  }
  if (shift.jitterMs !== null && shift.jitterMs > 0) {
    parts.push(`${parts.length === 0 ? '' : '+ '}up to ${formatDuration(shift.jitterMs)} jitter`);
  }
  if (parts.length === 0) return '';
  return `  ${offset === null ? '+ ' : ''}${parts.join(' ')}`;
}

/** `Sun 2026-03-08 02:30` from `2026-03-08T02:30:00`. */
function wallText(wall: string): string {
  const date = wall.slice(0, 10);
  const weekday = WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()] ?? '';
  const time = wall.slice(11, 19);
  return `${weekday} ${date} ${time.endsWith(':00') ? time.slice(0, 5) : time}`;
}

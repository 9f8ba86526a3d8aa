import { zonedParts } from '../../core/zoned-parts.js';
import { formatUtc, zoneAbbreviation, zoneOffset } from './time.js';

/**
 * `Fri 2026-03-06 09:00 EST (-05:00)  2026-03-06T14:00:00Z`: the wall time a job sees, and the
 * instant in UTC, so DST shifts are plain to see. Seconds appear only for 6-field cron expressions.
 */
export function formatFireTime(ms: number, zone: string): string {
  const p = zonedParts(ms, zone);
  const seconds = p.second === '00' ? '' : `:${p.second}`;
  const wall = `${p.weekday} ${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}${seconds}`;
  return `${wall} ${zoneAbbreviation(ms, zone)} (${zoneOffset(ms, zone)})  ${formatUtc(ms)}`;
}

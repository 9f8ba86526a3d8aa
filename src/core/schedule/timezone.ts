import { IANAZone } from 'luxon';
import { editDistance } from '../edit-distance.js';
import { SchedError } from '../errors.js';

/**
 * A wall-clock reading in some zone, written as the epoch milliseconds that the same calendar date and
 * clock time would have in UTC (so `Date.UTC(2026, 2, 8, 2, 30)` is "2026-03-08 02:30" on the wall).
 */
export type WallTime = number;

const DAY_MS = 86_400_000;
const ZONE_HINT = 'Use an IANA name such as Europe/Berlin or America/New_York.';

let knownZones: readonly string[] | undefined;

function listKnownZones(): readonly string[] {
  knownZones ??= ['UTC', ...Intl.supportedValuesOf('timeZone')];
  return knownZones;
}

/**
 * True for IANA zone names spelled as the tz database spells them. `europe/berlin` works in Intl but is
 * refused, so a job's stored zone always reads the way people and other tools expect.
 */
// The zone database does not change while the process runs, and luxon's check costs ~20 µs a call:
// remembering the answers keeps zone validation off the create path's profile.
const validity = new Map<string, boolean>();

export function isValidTimezone(tz: string): boolean {
  let valid = validity.get(tz);
  if (valid === undefined) {
    valid = checkTimezone(tz);
    if (validity.size < 10_000) validity.set(tz, valid);
  }
  return valid;
}

function checkTimezone(tz: string): boolean {
  if (tz.length === 0 || tz.trim() !== tz || !IANAZone.isValidZone(tz)) return false;
  if (listKnownZones().includes(tz)) return true;
  const lowered = tz.toLowerCase();
  if (listKnownZones().some((zone) => zone.toLowerCase() === lowered)) return false;
  // Aliases such as US/Eastern are not in Intl's canonical list; in the tz database every part starts upper-case.
  return tz.split('/').every((part) => /^[A-Z]/.test(part));
}

export function assertTimezone(tz: string): void {
  if (isValidTimezone(tz)) return;
  const suggestion = suggestTimezone(tz);
  const hint = suggestion === undefined ? ZONE_HINT : `Did you mean ${suggestion}? ${ZONE_HINT}`;
  throw new SchedError('UNKNOWN_TIMEZONE', `Unknown time zone "${tz}".`, {
    hint,
    details: { timezone: tz, ...(suggestion === undefined ? {} : { suggestion }) },
  });
}

function suggestTimezone(tz: string): string | undefined {
  const key = tz.trim().toLowerCase().replace(/\s+/g, '_');
  if (key.length === 0) return undefined;
  const zones = listKnownZones();
  const sameName = zones.find((zone) => zone.toLowerCase() === key);
  if (sameName !== undefined) return sameName;
  const titled = key.replace(
    /(^|[/_-])([a-z])/g,
    (_, separator: string, letter: string) => separator + letter.toUpperCase(),
  );
  if (IANAZone.isValidZone(titled)) return titled;
  const sameCity = zones.find((zone) => zone.toLowerCase().endsWith(`/${key}`));
  if (sameCity !== undefined) return sameCity;
  let best: { zone: string; distance: number } | undefined;
  for (const zone of zones) {
    // Beyond two letters' difference in length it cannot be within two edits; skip the full comparison.
    if (Math.abs(key.length - zone.length) > 2) continue;
    const distance = editDistance(key, zone.toLowerCase());
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { zone, distance };
  }
  return best?.zone;
}

const HOUR_MS = 3_600_000;

/**
 * Per zone, the latest hour found to have one offset throughout. luxon asks Intl for each offset (~20 us),
 * and firing asks for the offset of every instant it fires; most fall in the hour asked for last.
 */
const steadyHours = new Map<string, { from: number; offset: number }>();

/** The zone's offset from UTC at an instant, in milliseconds (positive east of Greenwich). */
export function offsetAt(tz: string, instant: number): number {
  const from = Math.floor(instant / HOUR_MS) * HOUR_MS;
  const steady = steadyHours.get(tz);
  if (steady?.from === from) return steady.offset;
  const zone = IANAZone.create(tz);
  if (!zone.isValid)
    throw new SchedError('UNKNOWN_TIMEZONE', `Unknown time zone "${tz}".`, { hint: ZONE_HINT });
  const offsetOf = (at: number) => Math.round(zone.offset(at) * 60_000);
  const offset = offsetOf(instant);
  // The same offset at both ends of the hour is its offset throughout: no zone changes its offset twice
  // within 24 hours (findOffsetChange relies on it too), so no change and change back hides between them.
  if (offsetOf(from) === offset && offsetOf(from + HOUR_MS - 1) === offset && steadyHours.size < 10_000)
    steadyHours.set(tz, { from, offset });
  return offset;
}

/**
 * The first instant in (from, to] whose offset differs from the offset at `from`, or null if there is none.
 * Probes a day at a time: no zone changes its offset twice within 24 hours, so no change hides between probes.
 */
export function findOffsetChange(tz: string, from: number, to: number): number | null {
  const base = offsetAt(tz, from);
  for (let low = from; low < to;) {
    let high = Math.min(low + DAY_MS, to);
    if (offsetAt(tz, high) !== base) {
      while (high - low > 1) {
        const middle = Math.floor((low + high) / 2);
        if (offsetAt(tz, middle) === base) low = middle;
        else high = middle;
      }
      return high;
    }
    low = high;
  }
  return null;
}

/** Calendar date and clock time of an instant as the zone's clocks show it. */
function wallTimeAt(tz: string, instant: number): WallTime {
  return instant + offsetAt(tz, instant);
}

/**
 * The instant a zone's clocks read `wall`. A reading that occurs twice (clocks set back) means its first
 * occurrence; a reading that never occurs (clocks set forward past it) means the instant of the jump,
 * the first moment after the skipped stretch. Cron's fixed-time jobs and `--at` share this rule.
 */
export function wallTimeToInstant(tz: string, wall: WallTime): number {
  const offsetBefore = offsetAt(tz, wall - DAY_MS);
  const offsetAfter = offsetAt(tz, wall + DAY_MS);
  const occurrences = [wall - offsetBefore, wall - offsetAfter].filter(
    (instant) => wallTimeAt(tz, instant) === wall,
  );
  if (occurrences.length > 0) return Math.min(...occurrences);
  return findOffsetChange(tz, wall - offsetAfter, wall - offsetBefore) ?? wall - offsetBefore;
}

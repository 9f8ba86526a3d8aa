import { zonedParts } from '../../core/zoned-parts.js';

/**
 * Instants as a person reads them: in the viewer's zone, with a hint of how far away they are.
 * Pure: the zone and `now` are handed in, so the output is the same in every test run.
 */
export interface Viewer {
  zone: string;
  now: number;
}

// Building an Intl.DateTimeFormat is costly next to using one; a table of a few hundred rows reuses them.
const nameFormatters = new Map<string, Intl.DateTimeFormat>();

function zoneNameFormatter(locale: string, zone: string, style: 'short' | 'longOffset'): Intl.DateTimeFormat {
  const key = `${locale}|${zone}|${style}`;
  let formatter = nameFormatters.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: style });
    nameFormatters.set(key, formatter);
  }
  return formatter;
}

function zoneName(ms: number, zone: string, locale: string, style: 'short' | 'longOffset'): string {
  const part = zoneNameFormatter(locale, zone, style)
    .formatToParts(ms)
    .find((p) => p.type === 'timeZoneName');
  return part?.value ?? 'GMT';
}

/** The zone's UTC offset at that instant, as `+01:00` / `-05:00`. */
export function zoneOffset(ms: number, zone: string): string {
  // UTC without Intl: see utcParts in core/zoned-parts.ts.
  if (zone === 'UTC') return '+00:00';
  const name = zoneName(ms, zone, 'en-US', 'longOffset');
  return name === 'GMT' ? '+00:00' : name.replace(/^GMT/, '');
}

/**
 * A short name such as `CET` or `EST`. Intl knows US abbreviations only in en-US and European ones
 * only in en-GB; where neither has one it says `GMT+9`, and the plain offset reads better.
 */
export function zoneAbbreviation(ms: number, zone: string): string {
  if (zone === 'UTC') return 'UTC';
  for (const locale of ['en-US', 'en-GB']) {
    const name = zoneName(ms, zone, locale, 'short');
    if (!/^GMT[+-]/.test(name)) return name;
  }
  return zoneOffset(ms, zone);
}

/** `2026-12-01 09:00:00 CET` */
export function formatInstant(ms: number, zone: string): string {
  const p = zonedParts(ms, zone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${zoneAbbreviation(ms, zone)}`;
}

/** `2026-03-06T09:00:00-05:00`: the local wall time with its offset, as ISO 8601 writes it. */
export function formatLocalIso(ms: number, zone: string): string {
  const p = zonedParts(ms, zone);
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${zoneOffset(ms, zone)}`;
}

/** `2026-03-06T14:00:00Z`: UTC without the milliseconds that schedules never have. */
export function formatUtc(ms: number): string {
  return new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
}

const RELATIVE_UNITS = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
] as const;

/**
 * `in 4m`, `3h ago`, `in 5h 2m`: the two largest units. Seconds show only under a minute, because
 * they change on every look and push columns around.
 */
export function formatRelative(ms: number, now: number): string {
  const distance = Math.abs(ms - now);
  if (distance < 1_000) return 'now';
  const units = distance < 60_000 ? RELATIVE_UNITS : RELATIVE_UNITS.slice(0, 3);
  const counts = units.map(([unit, size], index) => {
    const larger = index === 0 ? Infinity : units[index - 1]![1];
    return { unit, count: Math.floor((distance % larger) / size) };
  });
  const first = counts.findIndex(({ count }) => count > 0);
  const text = counts
    .slice(first, first + 2)
    .filter(({ count }) => count > 0)
    .map(({ unit, count }) => `${count}${unit}`)
    .join(' ');
  return ms > now ? `in ${text}` : `${text} ago`;
}

/** `2026-12-01 09:00:00 CET (in 5h 2m)` */
export function formatInstantWithRelative(ms: number, viewer: Viewer): string {
  return `${formatInstant(ms, viewer.zone)} (${formatRelative(ms, viewer.now)})`;
}

/**
 * The zone this machine's clock is shown in: `TZ` when set, else the system's. A UTC host is told by
 * Date's own name for the zone, which costs nothing next to building the Intl.DateTimeFormat that
 * resolves it otherwise; that name is localized, so elsewhere than in English Intl answers.
 */
export function hostTimeZone(): string {
  if (new Date(0).toString().endsWith('(Coordinated Universal Time)')) return 'UTC';
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

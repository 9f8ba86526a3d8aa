import { DateTime } from 'luxon';
import type { DstPolicy, Occurrence } from './occurrences.js';

/**
 * One line saying how a clock change touched an occurrence, for `sched next --explain`; null when it did not.
 * With `timezone`, times after a change carry the zone's abbreviation (EDT, GMT+11), so the two 01:30s of a
 * fall-back can be told apart.
 */
export function explainOccurrence(o: Occurrence, dst: DstPolicy, timezone?: string): string | null {
  const note = o.note;
  if (note === null) return null;
  switch (note.kind) {
    case 'shifted': {
      const from = sameDate(note.from, o.wall) ? clock(note.from) : `${date(note.from)} ${clock(note.from)}`;
      return `moved from ${from} (skipped by the spring-forward jump) to ${clock(o.wall)}${zoneName(o.at, timezone)}`;
    }
    case 'skipped':
      return `skipped: ${clock(o.wall)} does not exist on ${date(o.wall)} (--dst-gap skip)`;
    case 'repeated':
      return note.occurrence === 'first' ? firstOfTwo(o, dst, timezone) : secondOfTwo(o, dst, timezone);
  }
}

function firstOfTwo(o: Occurrence, dst: DstPolicy, timezone: string | undefined): string {
  const lead = `first of two ${clock(o.wall)}s (${context(o.at, timezone, 'before')})`;
  switch (dst.repeat) {
    case 'first':
      return `${lead}; the second is not run (--dst-repeat first)`;
    case 'last':
      return `${lead}; not run, the second runs instead (--dst-repeat last)`;
    case 'both':
      return `${lead}; both run (--dst-repeat both)`;
  }
}

function secondOfTwo(o: Occurrence, dst: DstPolicy, timezone: string | undefined): string {
  const where = context(o.at, timezone, 'after');
  switch (dst.repeat) {
    case 'first':
      return `second ${clock(o.wall)} (${where}); not run, the first already ran (--dst-repeat first)`;
    case 'last':
      return `second of two ${clock(o.wall)}s (${where}); runs instead of the first (--dst-repeat last)`;
    case 'both':
      return `second of two ${clock(o.wall)}s (${where}); both run (--dst-repeat both)`;
  }
}

function context(at: number, timezone: string | undefined, side: 'before' | 'after'): string {
  return timezone === undefined ? 'fall-back' : `${zoneName(at, timezone).trim()}, ${side} the fall-back`;
}

/** `02:30`, or `02:30:15` when the seconds matter, from a wall time written `2026-03-08T02:30:15`. */
export function clock(wall: string): string {
  const time = wall.slice(11);
  return time.startsWith('00', 6) && time.length === 8 ? time.slice(0, 5) : time;
}

function date(wall: string): string {
  return wall.slice(0, 10);
}

function sameDate(a: string, b: string): boolean {
  return date(a) === date(b);
}

/** ` EDT`, or '' without a zone. en-US names, so the text does not depend on the host's locale. */
function zoneName(at: number, timezone: string | undefined): string {
  if (timezone === undefined) return '';
  const name = DateTime.fromMillis(at, { zone: timezone, locale: 'en-US' }).offsetNameShort;
  return name === null ? '' : ` ${name}`;
}

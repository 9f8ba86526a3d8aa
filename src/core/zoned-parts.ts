/** A wall-clock reading of an instant in a zone, each field as Intl writes it (`09`, `Tue`). */
export interface ZonedParts {
  weekday: string;
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
}

// Building an Intl.DateTimeFormat is costly next to using one; a table of a few hundred rows reuses them.
const partFormatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatter(zone: string): Intl.DateTimeFormat {
  let formatter = partFormatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partFormatters.set(zone, formatter);
  }
  return formatter;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const twoDigits = (value: number) => String(value).padStart(2, '0');

/**
 * UTC read from Date itself, as Intl would write it: building the first Intl.DateTimeFormat of a process
 * costs milliseconds (its zone and locale data), which is much of what a short CLI command spends.
 * Years outside 1000..9999 are left to Intl, which writes them its own way.
 */
function utcParts(ms: number): ZonedParts | undefined {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return undefined;
  return {
    weekday: WEEKDAYS[date.getUTCDay()]!,
    year: String(year),
    month: twoDigits(date.getUTCMonth() + 1),
    day: twoDigits(date.getUTCDate()),
    hour: twoDigits(date.getUTCHours()),
    minute: twoDigits(date.getUTCMinutes()),
    second: twoDigits(date.getUTCSeconds()),
  };
}

/** Throws a RangeError for a zone Intl does not know. */
export function zonedParts(ms: number, zone: string): ZonedParts {
  const utc = zone === 'UTC' ? utcParts(ms) : undefined;
  if (utc !== undefined) return utc;
  const parts: Record<string, string> = {};
  for (const part of partsFormatter(zone).formatToParts(ms)) parts[part.type] = part.value;
  return {
    weekday: parts.weekday ?? '',
    year: parts.year ?? '',
    month: parts.month ?? '',
    day: parts.day ?? '',
    hour: parts.hour ?? '',
    minute: parts.minute ?? '',
    second: parts.second ?? '',
  };
}

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

/** Throws a RangeError for a zone Intl does not know. */
export function zonedParts(ms: number, zone: string): ZonedParts {
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

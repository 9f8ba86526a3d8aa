import { isValidTimezone, offsetAt } from '../core/schedule/timezone.js';
import { failure, pass, type Check } from './check.js';

export function timezoneCheck(): Check {
  const version = process.versions.tz ?? 'unknown';
  const fix = 'Upgrade Node.js; its bundled ICU carries the time zone database.';
  if (!isValidTimezone('America/New_York'))
    return failure('timezones', 'this Node.js knows no time zones', fix);
  const july = Date.UTC(2024, 6, 1);
  // Mexico dropped daylight saving in October 2022 (tzdata 2022f): older data still moves its clocks.
  if (
    offsetAt('America/New_York', july) !== -4 * 3_600_000 ||
    offsetAt('America/Mexico_City', july) !== -6 * 3_600_000
  )
    return failure('timezones', `the time zone data (tz ${version}) is out of date`, fix);
  return pass('timezones', `tz ${version}, recent rules known`);
}

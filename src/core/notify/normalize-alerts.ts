import { formatDuration, parseDuration } from '../duration.js';
import { inputError } from '../input-error.js';
import type { JobPatch } from '../job.js';
import { NOTIFY_EVENTS, type Alerts, type NotifyEvent } from './alerts.js';
import { parseNotifyTarget } from './notify-target.js';

export type AlertFields = Pick<JobPatch, 'notify' | 'notifyOn' | 'expectSuccessEvery'>;

// The overdue check polls rather than arming one timer per job, so the switch may be longer than a timer.
const MAX_SILENCE_MS = 366 * 86_400_000;
const MIN_SILENCE_MS = 1_000;

/** Applies `--notify`, `--notify-on` and `--expect-success-every` to the current alerts; absent fields keep theirs. */
export function buildAlerts(current: Alerts, fields: AlertFields, cleared: ReadonlySet<string>): Alerts {
  return {
    notify: cleared.has('notify')
      ? []
      : fields.notify === undefined
        ? current.notify
        : checkTargets(fields.notify),
    notifyOn: cleared.has('notifyOn')
      ? null
      : fields.notifyOn === undefined
        ? current.notifyOn
        : parseNotifyOn(fields.notifyOn),
    expectSuccessEveryMs: cleared.has('expectSuccessEvery')
      ? null
      : fields.expectSuccessEvery === undefined
        ? current.expectSuccessEveryMs
        : parseSilence(fields.expectSuccessEvery),
  };
}

function checkTargets(targets: string[]): string[] {
  const unique = [...new Set(targets.map((target) => target.trim()))];
  for (const target of unique) parseNotifyTarget(target);
  return unique;
}

/** `dead,recovered`: a comma list of events, each named once. */
export function parseNotifyOn(text: string): NotifyEvent[] {
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(NOTIFY_EVENTS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw inputError(
      'VALIDATION_FAILED',
      names.length === 0
        ? 'No notification event was given.'
        : `Unknown notification event${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}.`,
      `Give a comma list of ${NOTIFY_EVENTS.join(', ')}, such as --notify-on dead,recovered.`,
      { value: text },
    );
  }
  return NOTIFY_EVENTS.filter((event) => names.includes(event));
}

function parseSilence(text: string): number {
  const ms = parseDuration(text, 'expected success interval');
  if (ms < MIN_SILENCE_MS || ms > MAX_SILENCE_MS) {
    throw inputError(
      'VALIDATION_FAILED',
      `--expect-success-every "${text}" is out of range.`,
      `Give a duration from ${formatDuration(MIN_SILENCE_MS)} to ${formatDuration(MAX_SILENCE_MS)}, such as 1h or 26h for a daily job.`,
      { value: text },
    );
  }
  return ms;
}

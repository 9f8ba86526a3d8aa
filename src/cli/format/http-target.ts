import { formatDuration } from '../../core/duration.js';
import type { ExpectedStatus, HttpTarget } from '../../core/job.js';
import type { BreakerStatus } from '../../ipc/protocol.js';
import { formatInstant, formatRelative, type Viewer } from './time.js';

/**
 * The rows `sched show` prints for an HTTP job. Header values are left out, as env values are:
 * they are often credentials (`Authorization`).
 */
export function httpTargetFields(
  target: HttpTarget,
  breaker: BreakerStatus | null,
  viewer: Viewer,
): [string, string][] {
  const { failureThreshold, cooldownMs } = target.breaker;
  return [
    ['Request', `${target.method} ${target.url}`],
    ['Headers', Object.keys(target.headers).join(', ') || '-'],
    ['Expect', describeExpect(target.expect)],
    ['Breaker', describeBreaker(breaker, viewer)],
    [
      'Breaker opens',
      `after ${failureThreshold} ${failureThreshold === 1 ? 'failure' : 'failures in a row'}, for ${formatDuration(cooldownMs)}`,
    ],
  ];
}

/** `2xx`, or `200, 204`: the same words `--expect` takes. */
export function describeExpect(expect: ExpectedStatus): string {
  return expect.kind === 'class' ? `${expect.hundreds}xx` : expect.codes.join(', ');
}

/**
 * `closed`, `open since … (half-open at …)`, `half-open`. A breaker the daemon has no record of has
 * never failed, so it is closed.
 */
export function describeBreaker(breaker: BreakerStatus | null, viewer: Viewer): string {
  if (breaker === null) return 'closed';
  switch (breaker.state) {
    case 'closed': {
      const failures = breaker.consecutiveFailures;
      return failures === 0
        ? 'closed'
        : `closed (${failures} ${failures === 1 ? 'failure' : 'failures in a row'})`;
    }
    case 'open': {
      const since = breaker.openedAt === null ? '' : ` since ${formatInstant(breaker.openedAt, viewer.zone)}`;
      const retry =
        breaker.retryAt === null
          ? ''
          : ` (half-open at ${formatInstant(breaker.retryAt, viewer.zone)}, ${formatRelative(breaker.retryAt, viewer.now)})`;
      return `open${since}${retry}`;
    }
    case 'half_open':
      return 'half-open (one trial request decides)';
  }
}

import {
  breakerAdmits,
  breakerRecord,
  breakerRelease,
  breakerRetryAt,
  initialBreaker,
  type BreakerStateValue,
} from '../../core/breaker.js';
import type { BreakerSettings } from '../../core/job.js';
import type { BreakerStatus } from '../../ipc/protocol.js';

/** What a finished request says about its origin; a cancelled request says nothing. */
export type BreakerVerdict = 'success' | 'failure' | 'none';

export type BreakerTicket =
  | { admitted: true; origin: string; trial: boolean }
  /** `retryAt`: the earliest a request could be let through (the end of the cool-down). */
  | { admitted: false; origin: string; reason: string; retryAt: number };

interface OriginBreaker {
  value: BreakerStateValue;
  /** The settings of the last target seen for this origin; jobs sharing an origin share its breaker. */
  settings: BreakerSettings;
}

/** One breaker per origin. Healthy origins are forgotten, so the map only holds troubled ones. */
export class BreakerRegistry {
  private readonly breakers = new Map<string, OriginBreaker>();

  /**
   * Must be called synchronously before dispatch, so two runs cannot both become the half-open trial.
   * `origin` is the target URL's (see originOf).
   */
  admit(origin: string, settings: BreakerSettings, now: number): BreakerTicket {
    const entry = this.breakers.get(origin);
    if (entry === undefined) return { admitted: true, origin, trial: false };
    entry.settings = settings;
    const { admit, next } = breakerAdmits(entry.value, now, settings);
    if (!admit) {
      // Half-open, the trial's failure would reopen the breaker now: a cool-down from now is the earliest.
      const retryAt = breakerRetryAt(entry.value, settings) ?? now + settings.cooldownMs;
      return { admitted: false, origin, reason: circuitOpenMessage(origin, entry), retryAt };
    }
    const trial = entry.value.state === 'open' && next.state === 'half_open';
    entry.value = next;
    return { admitted: true, origin, trial };
  }

  /**
   * Only the trial's verdict or one reached while closed moves the breaker; results of requests that
   * were admitted before it opened are stale and must not close it or restart its cool-down.
   */
  record(
    ticket: Extract<BreakerTicket, { admitted: true }>,
    verdict: BreakerVerdict,
    settings: BreakerSettings,
    now: number,
  ): void {
    const entry = this.breakers.get(ticket.origin) ?? { value: initialBreaker(), settings };
    if (verdict === 'none') {
      if (ticket.trial) entry.value = breakerRelease(entry.value);
    } else if (ticket.trial || entry.value.state === 'closed') {
      entry.value = breakerRecord(entry.value, verdict === 'success', now, settings);
    }
    const healthy = entry.value.state === 'closed' && entry.value.consecutiveFailures === 0;
    if (healthy) this.breakers.delete(ticket.origin);
    else this.breakers.set(ticket.origin, entry);
  }

  /** Every troubled origin's breaker (healthy ones are not kept), for metrics. */
  troubled(): BreakerStatus[] {
    return [...this.breakers.keys()].map((origin) => this.status(origin));
  }

  status(url: string): BreakerStatus {
    const origin = originOf(url);
    const entry = this.breakers.get(origin);
    const value = entry?.value ?? initialBreaker();
    return {
      origin,
      state: value.state,
      consecutiveFailures: value.consecutiveFailures,
      openedAt: value.openedAt,
      retryAt: entry === undefined ? null : breakerRetryAt(value, entry.settings),
    };
  }
}

/** `scheme://host:port`; a URL that does not parse is its own origin, so this never throws. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function circuitOpenMessage(origin: string, { value, settings }: OriginBreaker): string {
  const prefix = `CIRCUIT_OPEN: breaker for ${origin} is`;
  const failures = `after ${value.consecutiveFailures} consecutive failures`;
  const retryAt = breakerRetryAt(value, settings);
  return retryAt === null
    ? `${prefix} half-open ${failures}; a trial request is in flight`
    : `${prefix} open ${failures}; half-open at ${new Date(retryAt).toISOString()}`;
}

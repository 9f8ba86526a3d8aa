import { describe, expect, it } from 'vitest';
import {
  breakerAdmits,
  breakerRecord,
  breakerRelease,
  breakerRetryAt,
  initialBreaker,
  type BreakerStateValue,
} from '../../src/core/breaker.js';

const SETTINGS = { failureThreshold: 3, cooldownMs: 30_000 };
const T0 = Date.UTC(2030, 0, 1);

function closedWith(consecutiveFailures: number): BreakerStateValue {
  return { state: 'closed', consecutiveFailures, openedAt: null };
}

function openSince(openedAt: number, consecutiveFailures = 3): BreakerStateValue {
  return { state: 'open', consecutiveFailures, openedAt };
}

function halfOpen(openedAt = T0, consecutiveFailures = 3): BreakerStateValue {
  return { state: 'half_open', consecutiveFailures, openedAt };
}

describe('initialBreaker', () => {
  it('Given nothing seen yet, when a breaker is created, then it is closed with no failures', () => {
    expect(initialBreaker()).toEqual({ state: 'closed', consecutiveFailures: 0, openedAt: null });
  });
});

describe('breakerAdmits', () => {
  it('Given a closed breaker, when a request asks, then it is admitted and the state is unchanged', () => {
    const b = closedWith(2);
    expect(breakerAdmits(b, T0, SETTINGS)).toEqual({ admit: true, next: b });
  });

  it('Given an open breaker inside its cool-down, when a request asks, then it is rejected', () => {
    const b = openSince(T0);
    expect(breakerAdmits(b, T0 + 29_999, SETTINGS)).toEqual({ admit: false, next: b });
  });

  it('Given an open breaker whose cool-down has just passed, when a request asks, then one trial is admitted and it goes half-open', () => {
    expect(breakerAdmits(openSince(T0), T0 + 30_000, SETTINGS)).toEqual({
      admit: true,
      next: halfOpen(T0),
    });
  });

  it('Given a half-open breaker with its trial in flight, when another request asks, then it is rejected', () => {
    const b = halfOpen();
    expect(breakerAdmits(b, T0 + 60_000, SETTINGS)).toEqual({ admit: false, next: b });
  });

  it('Given an open breaker and a clock that jumped backwards, when a request asks, then it stays rejected', () => {
    expect(breakerAdmits(openSince(T0), T0 - 60_000, SETTINGS).admit).toBe(false);
  });
});

describe('breakerRecord', () => {
  it('Given a closed breaker with failures, when a request succeeds, then the count resets', () => {
    expect(breakerRecord(closedWith(2), true, T0, SETTINGS)).toEqual(initialBreaker());
  });

  it('Given a closed breaker below the threshold, when a request fails, then the count goes up and it stays closed', () => {
    expect(breakerRecord(closedWith(1), false, T0, SETTINGS)).toEqual(closedWith(2));
  });

  it('Given a closed breaker one failure short of the threshold, when a request fails, then it opens now', () => {
    expect(breakerRecord(closedWith(2), false, T0, SETTINGS)).toEqual(openSince(T0, 3));
  });

  it('Given a threshold of one, when the first request fails, then the breaker opens at once', () => {
    const settings = { failureThreshold: 1, cooldownMs: 1_000 };
    expect(breakerRecord(initialBreaker(), false, T0, settings)).toEqual(openSince(T0, 1));
  });

  it('Given a half-open breaker, when the trial succeeds, then it closes with no failures', () => {
    expect(breakerRecord(halfOpen(), true, T0 + 30_000, SETTINGS)).toEqual(initialBreaker());
  });

  it('Given a half-open breaker, when the trial fails, then it opens again from now', () => {
    expect(breakerRecord(halfOpen(T0, 3), false, T0 + 31_000, SETTINGS)).toEqual(openSince(T0 + 31_000, 4));
  });

  it('Given an open breaker, when a request admitted before it opened fails, then the failure is counted without pushing back the cool-down', () => {
    expect(breakerRecord(openSince(T0, 3), false, T0 + 5_000, SETTINGS)).toEqual(openSince(T0, 4));
  });

  it('Given an open breaker, when a request admitted before it opened succeeds, then it stays open', () => {
    const b = openSince(T0);
    expect(breakerRecord(b, true, T0 + 5_000, SETTINGS)).toEqual(b);
  });
});

describe('breakerRelease', () => {
  it('Given a half-open breaker, when its trial is cancelled, then it is open again with the same openedAt so the next request is the trial', () => {
    const released = breakerRelease(halfOpen(T0));
    expect(released).toEqual(openSince(T0));
    expect(breakerAdmits(released, T0 + 30_000, SETTINGS).admit).toBe(true);
  });

  it('Given a closed breaker, when a request is released, then nothing changes', () => {
    const b = closedWith(1);
    expect(breakerRelease(b)).toBe(b);
  });
});

describe('breakerRetryAt', () => {
  it('Given an open breaker, when asked, then it retries at openedAt plus the cool-down', () => {
    expect(breakerRetryAt(openSince(T0), SETTINGS)).toBe(T0 + 30_000);
  });

  it('Given a closed breaker, when asked, then there is no retry time', () => {
    expect(breakerRetryAt(closedWith(2), SETTINGS)).toBeNull();
  });

  it('Given a half-open breaker, when asked, then there is no retry time because the trial is already out', () => {
    expect(breakerRetryAt(halfOpen(), SETTINGS)).toBeNull();
  });
});

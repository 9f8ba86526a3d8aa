import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../src/core/job.js';
import { backoffMs } from '../../src/core/retry/backoff.js';
import { decideRetry, type EndedAttempt } from '../../src/core/retry/decision.js';
import { classifyFailure } from '../../src/core/retry/failure-class.js';
import { annotateError, permanentReason } from '../../src/core/retry/failure-note.js';
import { retryAfterMs } from '../../src/core/retry/retry-after.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const exact: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxRetries: 5, jitter: false };
const never = (): number => {
  throw new Error('random must not be called without jitter');
};

function failed(changes: Partial<EndedAttempt['outcome']> = {}, target: EndedAttempt['target'] = 'http') {
  return {
    attempt: 1,
    outcome: {
      state: 'failed' as const,
      finishedAt: NOW,
      exitCode: null,
      httpStatus: null,
      responseHeaders: null,
      ...changes,
    },
    target,
    firstStartedAt: NOW,
    breakerWaits: 0,
  };
}

describe('classifyFailure', () => {
  it.each([500, 502, 503, 408, 425, 429])('given HTTP %i, classes it retryable', (status) => {
    expect(
      classifyFailure({ state: 'failed', exitCode: null, httpStatus: status }, 'http', {}),
    ).toMatchObject({
      failureClass: 'retryable',
    });
  });

  it.each([400, 401, 403, 404, 409, 422])('given HTTP %i, classes it permanent', (status) => {
    expect(classifyFailure({ state: 'failed', exitCode: null, httpStatus: status }, 'http', {})).toEqual({
      failureClass: 'permanent',
      reason: `HTTP ${status} is a client error: the same request would fail again`,
    });
  });

  it('given a refused connection (no status), a timeout or a lost run, classes it retryable', () => {
    for (const state of ['failed', 'timed_out', 'lost'] as const)
      expect(classifyFailure({ state, exitCode: null, httpStatus: null }, 'http', {}).failureClass).toBe(
        'retryable',
      );
  });

  it('given a missing or unexecutable command or an invalid request, classes it permanent', () => {
    expect(
      classifyFailure({ state: 'failed', exitCode: null, cause: { kind: 'not-found' } }, 'argv', {}),
    ).toEqual({
      failureClass: 'permanent',
      reason: 'the command does not exist',
    });
    expect(
      classifyFailure({ state: 'failed', exitCode: null, cause: { kind: 'not-executable' } }, 'argv', {})
        .failureClass,
    ).toBe('permanent');
    expect(
      classifyFailure({ state: 'failed', exitCode: null, cause: { kind: 'invalid-request' } }, 'http', {})
        .failureClass,
    ).toBe('permanent');
  });

  it('given a non-zero exit, classes it retryable by default; 127 of a shell script is a missing command', () => {
    expect(classifyFailure({ state: 'failed', exitCode: 3 }, 'argv', {}).failureClass).toBe('retryable');
    expect(classifyFailure({ state: 'failed', exitCode: 127 }, 'argv', {}).failureClass).toBe('retryable');
    expect(classifyFailure({ state: 'failed', exitCode: 127 }, 'shell', {}).failureClass).toBe('permanent');
  });

  it('given --no-retry-on and --retry-on, they decide before the defaults', () => {
    expect(classifyFailure({ state: 'failed', exitCode: 3 }, 'argv', { noRetryOn: [2, 3] })).toEqual({
      failureClass: 'permanent',
      reason: 'exit 3 is listed in --no-retry-on',
    });
    expect(classOf('http', 409, { retryOn: [409] })).toBe('retryable');
    expect(classOf('http', 503, { noRetryOn: [503] })).toBe('permanent');
    expect(classOf('shell', 127, { retryOn: [127] })).toBe('retryable');
  });
});

/** The class of a failure with this exit code (command jobs) or status (HTTP jobs). */
function classOf(target: EndedAttempt['target'], code: number, lists: Partial<RetryPolicy> = {}) {
  const facts = target === 'http' ? { exitCode: null, httpStatus: code } : { exitCode: code };
  return classifyFailure({ state: 'failed', ...facts }, target, lists).failureClass;
}

describe('retryAfterMs', () => {
  it('given seconds on a 503 or 429, asks for that many seconds', () => {
    expect(retryAfterMs(503, { 'retry-after': '2' }, NOW)).toBe(2_000);
    expect(retryAfterMs(429, { 'retry-after': ' 120 ' }, NOW)).toBe(120_000);
  });

  it('given an HTTP date, asks for the time until it; a date past asks for none', () => {
    const in90s = new Date(NOW + 90_000).toUTCString();
    expect(retryAfterMs(503, { 'retry-after': in90s }, NOW)).toBe(90_000);
    expect(retryAfterMs(503, { 'retry-after': new Date(NOW - 5_000).toUTCString() }, NOW)).toBe(0);
  });

  it('given another status, no header or an unreadable one, asks for nothing', () => {
    expect(retryAfterMs(500, { 'retry-after': '2' }, NOW)).toBeNull();
    expect(retryAfterMs(503, {}, NOW)).toBeNull();
    expect(retryAfterMs(503, { 'retry-after': 'soon' }, NOW)).toBeNull();
    expect(retryAfterMs(null, { 'retry-after': '2' }, NOW)).toBeNull();
  });
});

describe('backoffMs by backoff type', () => {
  it('given linear, each delay is one first delay longer than the one before, up to the longest', () => {
    const linear: RetryPolicy = { ...exact, backoffType: 'linear', maxBackoffMs: 45_000 };
    expect([1, 2, 3, 4, 5].map((attempt) => backoffMs(attempt, linear, never))).toEqual([
      10_000, 20_000, 30_000, 40_000, 45_000,
    ]);
  });

  it('given constant, every delay is the first, whatever the factor', () => {
    const constant: RetryPolicy = { ...exact, backoffType: 'constant', factor: 3 };
    expect([1, 2, 7].map((attempt) => backoffMs(attempt, constant, never))).toEqual([10_000, 10_000, 10_000]);
  });

  it('given a stored policy without a backoff type, grows exponentially as before', () => {
    expect([1, 2, 3].map((attempt) => backoffMs(attempt, exact, never))).toEqual([10_000, 20_000, 40_000]);
  });

  const policies = fc.record({
    initialBackoffMs: fc.integer({ min: 0, max: 3_600_000 }),
    extraMaxMs: fc.integer({ min: 0, max: 86_400_000 }),
    factor: fc.double({ min: 1, max: 100, noNaN: true }),
    backoffType: fc.constantFrom('exponential', 'linear', 'constant', undefined),
    jitter: fc.boolean(),
  });

  it('property: a delay never exceeds the longest backoff, whatever the type, attempt and draw', () => {
    fc.assert(
      fc.property(
        policies,
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (p, attempt, draw) => {
          const policy: RetryPolicy = {
            ...exact,
            ...p,
            maxBackoffMs: p.initialBackoffMs + p.extraMaxMs,
            backoffType: p.backoffType as RetryPolicy['backoffType'],
          };
          const delay = backoffMs(attempt, policy, () => draw);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(policy.maxBackoffMs);
        },
      ),
    );
  });

  it('property: linear gaps without jitter are equal steps of the first delay until the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600_000 }), fc.integer({ min: 1, max: 50 }), (first, attempt) => {
        const policy: RetryPolicy = {
          ...exact,
          backoffType: 'linear',
          initialBackoffMs: first,
          maxBackoffMs: first * 100,
        };
        expect(backoffMs(attempt + 1, policy, never) - backoffMs(attempt, policy, never)).toBe(first);
      }),
    );
  });
});

describe('decideRetry', () => {
  it('given a permanent failure, makes no retry and says why in the stored error', () => {
    const decision = decideRetry(failed({ httpStatus: 401 }), exact, NOW, never);
    expect(decision).toMatchObject({ retry: false, verdict: { failureClass: 'permanent' } });
    const error = annotateError('HTTP 401 (expected 2xx)', decision, exact);
    expect(error).toBe(
      'PERMANENT (HTTP 401 is a client error: the same request would fail again), not retried: HTTP 401 (expected 2xx)',
    );
    expect(permanentReason(error)).toBe('HTTP 401 is a client error: the same request would fail again');
  });

  it('given a job without retries, classes nothing and leaves its error as it was', () => {
    const decision = decideRetry(failed({ httpStatus: 404 }), DEFAULT_RETRY_POLICY, NOW, never);
    expect(decision).toEqual({ retry: false, verdict: null, deadlinePassed: false });
    expect(annotateError('HTTP 404 (expected 2xx)', decision, DEFAULT_RETRY_POLICY)).toBe(
      'HTTP 404 (expected 2xx)',
    );
  });

  it('given a 503 with Retry-After, retries after it, capped by the longest backoff', () => {
    const headers = { 'retry-after': '2' };
    expect(decideRetry(failed({ httpStatus: 503, responseHeaders: headers }), exact, NOW, never)).toEqual({
      retry: true,
      dueAt: NOW + 2_000,
    });
    const long = { 'retry-after': '86400' };
    expect(decideRetry(failed({ httpStatus: 429, responseHeaders: long }), exact, NOW, never)).toEqual({
      retry: true,
      dueAt: NOW + exact.maxBackoffMs,
    });
  });

  it('given a deadline the next retry would pass, stops, and says so', () => {
    const policy: RetryPolicy = { ...exact, deadlineMs: 15_000 };
    const second = { ...failed({ httpStatus: 500, finishedAt: NOW + 11_000 }), attempt: 2 };
    const decision = decideRetry(second, policy, NOW + 11_000, never);
    expect(decision).toMatchObject({ retry: false, deadlinePassed: true });
    expect(annotateError('HTTP 500 (expected 2xx)', decision, policy)).toBe(
      'HTTP 500 (expected 2xx); not retried: the retry deadline (15s after the first attempt started) would have passed',
    );
    expect(decideRetry(failed({ httpStatus: 500 }), policy, NOW, never)).toEqual({
      retry: true,
      dueAt: NOW + 10_000,
    });
  });

  it('given a breaker-open failure, waits for the half-open instant and spends no retry', () => {
    const policy: RetryPolicy = { ...exact, maxRetries: 1 };
    const fast = failed({ cause: { kind: 'breaker-open', retryAt: NOW + 30_000 } });
    expect(decideRetry({ ...fast, attempt: 2 }, policy, NOW, never)).toEqual({
      retry: true,
      dueAt: NOW + 30_000,
    });
    // Attempt 3 after one breaker wait is the first retry actually spent: one is allowed.
    const third = { ...failed({ httpStatus: 500 }), attempt: 3, breakerWaits: 1 };
    expect(decideRetry(third, policy, NOW, never)).toMatchObject({ retry: false });
    expect(decideRetry({ ...third, attempt: 2 }, policy, NOW, never)).toMatchObject({ retry: true });
  });
});

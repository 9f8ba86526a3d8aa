import type { BreakerSettings, Placement, RetryPolicy, TimePolicy } from './job.js';

// Plain values apart from job.ts's zod schemas: `sched show` compares against them, and loading zod
// would cost that command more than the rest of its start-up.

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 0,
  initialBackoffMs: 10_000,
  factor: 2,
  maxBackoffMs: 3_600_000,
  jitter: true,
};

export const DEFAULT_TIME_POLICY: TimePolicy = {
  concurrency: 'forbid',
  misfire: { policy: { kind: 'latest' }, catchupWindowMs: 3_600_000, skipIfNextWithinMs: null },
  dst: { gap: 'shift', repeat: 'first' },
  spreadMs: null,
  jitterMs: null,
};

export const DEFAULT_PLACEMENT: Placement = { mode: 'once', on: {} };

export const DEFAULT_BREAKER_SETTINGS: BreakerSettings = { failureThreshold: 5, cooldownMs: 30_000 };

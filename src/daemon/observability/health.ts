import { settledWithin, TIMED_OUT, type Clock } from '../clock.js';

export type HealthStatus = 'UP' | 'DOWN';

export interface ComponentHealth {
  status: HealthStatus;
  latency_ms: number;
  error?: string;
}

/** The shape the design documents give for /health, /ready, /live and /startup. */
export interface HealthReport {
  status: HealthStatus;
  timestamp: string;
  components: Record<string, ComponentHealth>;
  uptime_seconds: number;
  version: string;
  /** Said while the node runs without its store (see degradedNotice). */
  degraded?: string;
}

export interface HealthCheck {
  name: string;
  check: () => Promise<void>;
}

/** Runs every check (each bounded by `timeoutMs`) and reports DOWN if any one is down. */
export async function checkHealth(
  checks: HealthCheck[],
  context: { clock: Clock; startedAt: number; version: string; timeoutMs: number },
): Promise<HealthReport> {
  const components: Record<string, ComponentHealth> = {};
  await Promise.all(
    checks.map(async ({ name, check }) => {
      const { clock } = context;
      const started = clock.monotonic();
      try {
        await withTimeout(
          clock,
          check(),
          context.timeoutMs,
          `${name} did not answer within ${context.timeoutMs} ms`,
        );
        components[name] = { status: 'UP', latency_ms: round(clock.monotonic() - started) };
      } catch (error) {
        components[name] = {
          status: 'DOWN',
          latency_ms: round(clock.monotonic() - started),
          error: (error as Error).message,
        };
      }
    }),
  );
  const now = context.clock.now();
  return {
    status: Object.values(components).every((component) => component.status === 'UP') ? 'UP' : 'DOWN',
    timestamp: new Date(now).toISOString(),
    components,
    uptime_seconds: Math.round((now - context.startedAt) / 1000),
    version: context.version,
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

async function withTimeout(clock: Clock, promise: Promise<void>, ms: number, message: string): Promise<void> {
  if ((await settledWithin(clock, promise, ms)) === TIMED_OUT) throw new Error(message);
}

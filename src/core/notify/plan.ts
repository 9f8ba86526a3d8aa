import type { Job } from '../job.js';
import type { RunOutcome } from '../run.js';
import { DEFAULT_ALERTS, DEFAULT_NOTIFY_ON, type NotifyEvent } from './alerts.js';
import type { NewDelivery } from './delivery.js';

/** The `[notify]` settings of the config file that jobs fall back on. */
export interface NotifyDefaults {
  targets: readonly string[];
  on: readonly NotifyEvent[] | null;
}

/**
 * Who a job notifies about what: its own targets and events, else the config's, else dead and recovered
 * (and overdue, for a job with a dead-man's switch: whoever set one wants to hear it trip).
 */
export function resolveAlerts(
  job: Pick<Job, 'alerts'>,
  defaults: NotifyDefaults,
): { targets: readonly string[]; on: readonly NotifyEvent[] } {
  const alerts = job.alerts ?? DEFAULT_ALERTS;
  return {
    targets: alerts.notify.length > 0 ? alerts.notify : defaults.targets,
    on:
      alerts.notifyOn ??
      defaults.on ??
      (alerts.expectSuccessEveryMs === null ? DEFAULT_NOTIFY_ON : [...DEFAULT_NOTIFY_ON, 'overdue']),
  };
}

/** How a run ended, as far as notifications care. */
export interface RunEnd {
  runId: string;
  outcome: RunOutcome['state'];
  /** Another attempt follows (a retry was scheduled in the same write). */
  retrying: boolean;
  /** The job's previous final outcome failed, so a success now is a recovery. */
  previousFailed: boolean;
}

const FAILED: ReadonlySet<RunOutcome['state']> = new Set(['failed', 'timed_out', 'lost']);

/** The events a run's end stands for: each failed attempt is a `failure`, the last one `dead`. */
export function runEvents(end: Omit<RunEnd, 'runId'>): NotifyEvent[] {
  if (end.outcome === 'succeeded') return end.previousFailed ? ['success', 'recovered'] : ['success'];
  if (!FAILED.has(end.outcome)) return [];
  return end.retrying ? ['failure'] : ['failure', 'dead'];
}

/**
 * The deliveries a run's end causes, one per (event the job listens for, target). Keyed by run, event and
 * target, so a run recorded twice (a retried write, another daemon) notifies once; a recovery is keyed by
 * the successful run, so the dead run's recovery and an overdue job's are one message.
 */
export function runDeliveries(
  job: Pick<Job, 'id' | 'alerts'>,
  end: RunEnd,
  defaults: NotifyDefaults,
  now: number,
  newId: () => string,
): NewDelivery[] {
  const { targets, on } = resolveAlerts(job, defaults);
  const events = runEvents(end).filter((event) => on.includes(event));
  return events.flatMap((kind) =>
    targets.map((target) => ({
      id: newId(),
      jobId: job.id,
      runId: end.runId,
      kind,
      target,
      dedupKey: `${kind}:${end.runId}:${target}`,
      dueAt: now,
      createdAt: now,
      detail: '',
    })),
  );
}

/** The deliveries of a job's dead-man's switch tripping (`overdue`) or clearing (`recovered`). */
export function overdueDeliveries(
  job: Pick<Job, 'id' | 'alerts'>,
  event: { kind: 'overdue'; since: number } | { kind: 'recovered'; runId: string },
  defaults: NotifyDefaults,
  detail: string,
  now: number,
  newId: () => string,
): NewDelivery[] {
  const { targets, on } = resolveAlerts(job, defaults);
  if (!on.includes(event.kind)) return [];
  return targets.map((target) => ({
    id: newId(),
    jobId: job.id,
    runId: event.kind === 'recovered' ? event.runId : null,
    kind: event.kind,
    target,
    dedupKey:
      event.kind === 'overdue'
        ? `overdue:${job.id}:${event.since}:${target}`
        : `recovered:${event.runId}:${target}`,
    dueAt: now,
    createdAt: now,
    detail,
  }));
}

/** The throttle: at most `maxPerWindow` messages per job and target in each fixed window, then one summary. */
export interface Throttle {
  maxPerWindow: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE: Throttle = { maxPerWindow: 5, windowMs: 3_600_000 };

/** The fixed window `now` falls in. */
export function throttleWindow(now: number, throttle: Throttle): { start: number; end: number } {
  const start = Math.floor(now / throttle.windowMs) * throttle.windowMs;
  return { start, end: start + throttle.windowMs };
}

const DELIVERY_BACKOFF_MS = [1_000, 5_000, 30_000, 120_000, 600_000, 1_800_000];
/** Attempts before a delivery is given up as failed (about 3 hours of trying). */
export const MAX_DELIVERY_ATTEMPTS = 10;

/** How long to wait after the `attempts`-th failed attempt. */
export function deliveryBackoffMs(attempts: number): number {
  return DELIVERY_BACKOFF_MS[Math.min(attempts, DELIVERY_BACKOFF_MS.length) - 1] ?? DELIVERY_BACKOFF_MS[0]!;
}

import type { Delivery, DeliveryAttempt } from '../../core/notify/delivery.js';
import { buildMessage, type NotifyMessage } from '../../core/notify/message.js';
import { describeStoredTarget } from '../../core/notify/notify-target.js';
import {
  deliveryBackoffMs,
  MAX_DELIVERY_ATTEMPTS,
  throttleWindow,
  type Throttle,
} from '../../core/notify/plan.js';
import type { Store } from '../../store/store.js';
import { pauseFor, type Clock } from '../clock.js';
import type { DaemonEvents, NotificationAttempt } from '../events.js';
import type { Service } from '../service.js';
import type { TargetAnswer } from './transports.js';

export interface DispatcherOptions {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  throttle: Throttle;
  newId: () => string;
  send: (target: string, message: NotifyMessage) => Promise<TargetAnswer>;
  /**
   * How often the outbox is looked at when nothing wakes the dispatcher sooner; null when this daemon is
   * the store's only writer, so nothing it did not put there itself can appear (default 15 s).
   */
  pollMs?: number | null;
}

const BATCH = 20;
/**
 * The outbox is read when this daemon stores a delivery (wake), when the earliest pending one falls due,
 * and, where other daemons write the store too, this often: for what they stored.
 */
const DEFAULT_POLL_MS = 15_000;
const ERROR_PAUSE_MS = 5_000;
/** Longer than a send usually takes (15s timeouts): a daemon that dies sending leaves the delivery this long. */
const SEND_LEASE_MS = 30_000;

/**
 * Sends the stored deliveries that are due, one at a time, apart from the runs (a slow or dead target never
 * holds up a run's end, which only wrote the row). A target that refuses is tried again with backoff until
 * MAX_DELIVERY_ATTEMPTS; a job that already sent its share of the window to a target is held back, and one
 * summary goes out when the window ends.
 */
export class NotificationDispatcher implements Service {
  readonly name = 'notifications';
  private stopped = false;
  private loop: Promise<void> | null = null;
  private wakeUp = new AbortController();

  constructor(private readonly options: DispatcherOptions) {}

  async start(): Promise<void> {
    this.loop ??= this.run();
  }

  /** New deliveries were stored: look at once rather than at the next poll. */
  wake(): void {
    this.wakeUp.abort();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { clock, events } = this.options;
    while (!this.stopped) {
      let pause = this.options.pollMs === undefined ? DEFAULT_POLL_MS : (this.options.pollMs ?? Infinity);
      try {
        const due = await this.options.store.dueDeliveries(clock.now(), BATCH);
        for (const delivery of due) {
          if (this.stopped) return;
          await this.deliver(delivery);
        }
        if (due.length === BATCH) pause = 0;
        else {
          // Sleep until the earliest delivery still pending falls due: a retry or a summary put off (before
          // a restart too), or one held by a send lease that a daemon died holding.
          const [next] = await this.options.store.dueDeliveries(Number.MAX_SAFE_INTEGER, 1);
          if (next) pause = Math.min(pause, Math.max(0, next.dueAt - clock.now()));
        }
      } catch (error) {
        events.emit('scheduler:error', { error: error as Error });
        pause = ERROR_PAUSE_MS;
      }
      if (this.stopped) return;
      if (this.wakeUp.signal.aborted) this.wakeUp = new AbortController();
      else await pauseFor(clock, pause, this.wakeUp.signal);
    }
  }

  private async deliver(delivery: Delivery): Promise<void> {
    const { store, clock } = this.options;
    // Another daemon on the same store may have read it too: only the one that claims it sends it.
    if (!(await store.claimDelivery(delivery.id, delivery.dueAt, clock.now() + SEND_LEASE_MS))) return;
    if (delivery.kind !== 'summary' && (await this.throttled(delivery))) return;
    const detail = delivery.kind === 'summary' ? await this.summaryDetail(delivery) : delivery.detail;
    const job = await store.findJob(delivery.jobId);
    const run = delivery.runId === null ? null : await store.findRun(delivery.runId);
    const message = buildMessage(
      delivery.kind,
      delivery.id,
      job ?? { id: delivery.jobId, name: delivery.jobName, labels: {} },
      run,
      detail,
      clock.now(),
    );
    const answer = await this.options.send(delivery.target, message);
    const attempts = delivery.attempts + 1;
    const now = clock.now();
    const attempt: DeliveryAttempt = answer.ok
      ? {
          state: 'delivered',
          attempts,
          dueAt: delivery.dueAt,
          finishedAt: now,
          answer: answer.answer,
          lastError: null,
        }
      : attempts >= MAX_DELIVERY_ATTEMPTS
        ? {
            state: 'failed',
            attempts,
            dueAt: delivery.dueAt,
            finishedAt: now,
            answer: answer.answer,
            lastError: answer.answer,
          }
        : {
            state: 'pending',
            attempts,
            dueAt: now + deliveryBackoffMs(attempts),
            finishedAt: null,
            answer: answer.answer,
            lastError: answer.answer,
          };
    await store.recordDeliveryAttempt(delivery.id, attempt);
    this.report(
      delivery,
      answer.ok ? 'delivered' : attempt.state === 'failed' ? 'failed' : 'retrying',
      answer.answer,
    );
  }

  /** Holds a message back when the job already sent its share of this window to the target. */
  private async throttled(delivery: Delivery): Promise<boolean> {
    const { store, clock, throttle, newId } = this.options;
    const window = throttleWindow(delivery.createdAt, throttle);
    const sent = await store.countDeliveries(delivery.jobId, delivery.target, window.start, [
      'delivered',
      'failed',
    ]);
    if (sent < throttle.maxPerWindow) return false;
    const now = clock.now();
    await store.enqueueDeliveries([
      {
        id: newId(),
        jobId: delivery.jobId,
        runId: null,
        kind: 'summary',
        target: delivery.target,
        dedupKey: `summary:${delivery.jobId}:${delivery.target}:${window.start}`,
        dueAt: window.end,
        createdAt: now,
        detail: '',
      },
    ]);
    await store.recordDeliveryAttempt(delivery.id, {
      state: 'suppressed',
      attempts: delivery.attempts,
      dueAt: delivery.dueAt,
      finishedAt: now,
      answer: 'held back for the summary: too many messages in the window',
      lastError: null,
    });
    this.report(delivery, 'suppressed', 'held back for the summary');
    return true;
  }

  private async summaryDetail(summary: Delivery): Promise<string> {
    const start = summary.dueAt - this.options.throttle.windowMs;
    const held = await this.options.store.countDeliveries(summary.jobId, summary.target, start, [
      'suppressed',
    ]);
    const sent = await this.options.store.countDeliveries(summary.jobId, summary.target, start, [
      'delivered',
      'failed',
    ]);
    return `${held} more notification${held === 1 ? ' was' : 's were'} held back after ${sent} in ${Math.round(this.options.throttle.windowMs / 1000)}s; the job is flapping. See sched notifications and sched history.`;
  }

  private report(delivery: Delivery, outcome: NotificationAttempt['outcome'], answer: string): void {
    this.options.events.emit('notification:attempted', {
      id: delivery.id,
      jobId: delivery.jobId,
      kind: delivery.kind,
      target: describeStoredTarget(delivery.target),
      outcome,
      answer,
    });
  }
}

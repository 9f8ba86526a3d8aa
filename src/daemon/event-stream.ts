import type { EventMessage, StreamEvent, StreamEventType } from '../ipc/protocol.js';
import type { ServerConnection } from '../ipc/transport.js';
import type { Clock } from './clock.js';
import type { DaemonEventMap, DaemonEvents } from './events.js';
import { PUBLISHED_EVENT_TYPES } from '../ipc/stream-event-types.js';

/** A subscriber that has this much unread on its socket reads too slowly; it is dropped, not waited for. */
export const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

interface Subscription {
  id: number;
  connection: ServerConnection;
  types: Set<string> | null;
  runId: string | undefined;
}

/**
 * Fans the daemon's events out to socket subscribers. Publishing never blocks or slows the scheduler:
 * each event is serialised once per subscriber and written without waiting, and a subscriber whose
 * socket backs up past MAX_UNREAD_BYTES gets `stream:dropped` with the reason and is disconnected.
 */
export class EventStream {
  private readonly subscriptions = new Set<Subscription>();

  constructor(
    events: DaemonEvents,
    private readonly clock: Clock,
    private readonly maxUnreadBytes = MAX_UNREAD_BYTES,
  ) {
    for (const type of PUBLISHED_EVENT_TYPES) {
      events.on(type as keyof DaemonEventMap, ((data: unknown) => this.publish(type, data)) as never);
    }
  }

  subscribe(id: number, connection: ServerConnection, filter: { types?: string[]; runId?: string }): void {
    const subscription: Subscription = {
      id,
      connection,
      types: filter.types ? new Set(filter.types) : null,
      runId: filter.runId,
    };
    this.subscriptions.add(subscription);
    connection.onClose(() => this.subscriptions.delete(subscription));
  }

  get subscriberCount(): number {
    return this.subscriptions.size;
  }

  private publish(type: StreamEventType, data: unknown): void {
    if (this.subscriptions.size === 0) return;
    const event = { type, at: this.clock.now(), data } as StreamEvent;
    const runId = runIdOf(data);
    for (const subscription of this.subscriptions) {
      if (subscription.types && !subscription.types.has(type)) continue;
      if (subscription.runId !== undefined && subscription.runId !== runId) continue;
      if (subscription.connection.pendingBytes() > this.maxUnreadBytes) {
        this.drop(
          subscription,
          `the subscriber read too slowly (over ${this.maxUnreadBytes} bytes unread); reconnect to resume`,
        );
        continue;
      }
      subscription.connection.send({
        kind: 'event',
        subscription: subscription.id,
        event,
      } satisfies EventMessage);
    }
  }

  private drop(subscription: Subscription, reason: string): void {
    this.subscriptions.delete(subscription);
    const event: StreamEvent = { type: 'stream:dropped', at: this.clock.now(), data: { reason } };
    subscription.connection.send({
      kind: 'event',
      subscription: subscription.id,
      event,
    } satisfies EventMessage);
    subscription.connection.close();
  }
}

function runIdOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const record = data as { runId?: unknown; id?: unknown; jobId?: unknown };
  if (typeof record.runId === 'string') return record.runId;
  // Run payloads carry their own id next to a jobId; job payloads have no jobId.
  if (typeof record.id === 'string' && typeof record.jobId === 'string') return record.id;
  return undefined;
}

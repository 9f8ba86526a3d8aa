import type { EventMessage, StreamEvent, StreamEventType } from '../ipc/protocol.js';
import type { ServerConnection } from '../ipc/transport.js';
import type { Store, StoredEvent } from '../store/store.js';
import type { Clock } from './clock.js';
import type { DaemonEventMap, DaemonEvents } from './events.js';
import { PUBLISHED_EVENT_TYPES } from '../ipc/stream-event-types.js';
import { maskDefinitionsIn } from '../core/secrets/mask.js';

/** A subscriber that has this much unread on its socket reads too slowly; it is dropped, not waited for. */
export const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

export interface EventStreamOptions {
  /** This node's id, which every event published here carries unless it came from another node. */
  node?: string;
  /**
   * The types this stream takes from the outbox (`publishStored`) rather than from the daemon's events:
   * they then carry the id the store gave them, from whichever node they come.
   */
  storedTypes?: ReadonlySet<string>;
  maxUnreadBytes?: number;
}

/** Reads the retained events after an id, a page at a time, oldest first; an empty page is the end. */
export type EventReplay = (after: number) => Promise<StoredEvent[]>;

interface Subscription {
  id: number;
  connection: ServerConnection;
  types: Set<string> | null;
  runId: string | undefined;
  /** While the retained events are replayed, live ones wait here. */
  held: StreamEvent[] | null;
  /** Ids the replay sent, so the same event arriving live is not sent twice. */
  replayed: Set<number>;
}

/**
 * Fans the daemon's events out to socket subscribers. Publishing never blocks or slows the scheduler:
 * each event is serialised once per subscriber and written without waiting, and a subscriber whose
 * socket backs up past MAX_UNREAD_BYTES gets `stream:dropped` with the reason and is disconnected.
 */
export class EventStream {
  private readonly subscriptions = new Set<Subscription>();
  private readonly node: string | undefined;
  private readonly maxUnreadBytes: number;

  constructor(
    events: DaemonEvents,
    private readonly clock: Clock,
    options: EventStreamOptions | number = {},
  ) {
    const settings = typeof options === 'number' ? { maxUnreadBytes: options } : options;
    this.node = settings.node;
    this.maxUnreadBytes = settings.maxUnreadBytes ?? MAX_UNREAD_BYTES;
    for (const type of PUBLISHED_EVENT_TYPES) {
      if (settings.storedTypes?.has(type)) continue;
      events.on(
        type as keyof DaemonEventMap,
        ((data: unknown) => this.publish(this.local(type, data))) as never,
      );
    }
  }

  /**
   * Subscribes a connection. With `since`, the retained events after that id are sent first, then the live
   * ones, with no gap (live events wait while the replay runs) and no repeat (an event the replay sent is
   * skipped when it also arrives live).
   */
  async subscribe(
    id: number,
    connection: ServerConnection,
    filter: { types?: string[]; runId?: string },
    replay?: { since: number; read: EventReplay },
  ): Promise<void> {
    const subscription: Subscription = {
      id,
      connection,
      types: filter.types ? new Set(filter.types) : null,
      runId: filter.runId,
      held: replay ? [] : null,
      replayed: new Set(),
    };
    this.subscriptions.add(subscription);
    connection.onClose(() => this.subscriptions.delete(subscription));
    if (!replay) return;
    try {
      let after = replay.since;
      for (;;) {
        const page = await replay.read(after);
        if (page.length === 0) break;
        for (const event of page) {
          subscription.replayed.add(event.id);
          this.offer(subscription, masked(streamEventOf(event)));
          after = Math.max(after, event.id);
        }
      }
    } finally {
      const held = subscription.held ?? [];
      subscription.held = null;
      for (const event of held) this.offer(subscription, event);
    }
  }

  get subscriberCount(): number {
    return this.subscriptions.size;
  }

  /** An event from the outbox: one this node stored (once committed), or another node's (as read back). */
  publishStored(event: StoredEvent): void {
    if (this.subscriptions.size === 0) return;
    this.publish(streamEventOf(event));
  }

  /**
   * Publishes the job and run events the store commits, until the returned function is called. Run
   * output is not among them: this node's goes out live, chunk by chunk.
   */
  followStore(store: Pick<Store, 'onEventsStored'>): () => void {
    return store.onEventsStored((stored) => {
      for (const event of stored) if (event.type !== 'run:output') this.publishStored(event);
    });
  }

  private local(type: StreamEventType, data: unknown): StreamEvent {
    const event = { type, at: this.clock.now(), data } as StreamEvent;
    return this.node === undefined ? event : { ...event, node: this.node };
  }

  private publish(unmasked: StreamEvent): void {
    if (this.subscriptions.size === 0) return;
    const event = masked(unmasked);
    for (const subscription of this.subscriptions) {
      if (subscription.held) subscription.held.push(event);
      else this.offer(subscription, event);
    }
  }

  private offer(subscription: Subscription, event: StreamEvent): void {
    if (!this.subscriptions.has(subscription)) return;
    if (subscription.types && !subscription.types.has(event.type)) return;
    if (subscription.runId !== undefined && subscription.runId !== runIdOf(event.data)) return;
    if (event.id !== undefined && subscription.held === null && subscription.replayed.has(event.id)) {
      subscription.replayed.delete(event.id);
      return;
    }
    if (subscription.connection.pendingBytes() > this.maxUnreadBytes) {
      this.drop(
        subscription,
        `the subscriber read too slowly (over ${this.maxUnreadBytes} bytes unread); reconnect to resume`,
      );
      return;
    }
    subscription.connection.send({
      kind: 'event',
      subscription: subscription.id,
      event,
    } satisfies EventMessage);
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

function streamEventOf(event: StoredEvent): StreamEvent {
  return { type: event.type, at: event.at, data: event.data, id: event.id, node: event.node } as StreamEvent;
}

/** Subscribers (`sched watch`, the dashboard) never see secret values, whoever they are. */
function masked(event: StreamEvent): StreamEvent {
  const data = maskDefinitionsIn(event.data);
  return data === event.data ? event : ({ ...event, data } as StreamEvent);
}

function runIdOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const record = data as { runId?: unknown; id?: unknown; jobId?: unknown };
  if (typeof record.runId === 'string') return record.runId;
  // Run payloads carry their own id next to a jobId; job payloads have no jobId.
  if (typeof record.id === 'string' && typeof record.jobId === 'string') return record.id;
  return undefined;
}

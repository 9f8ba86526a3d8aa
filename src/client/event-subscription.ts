import { SchedError } from '../core/errors.js';
import type { StreamEvent, StreamEventType } from '../ipc/protocol.js';
import type { DaemonConnection } from './daemon-connection.js';

/**
 * Events that arrived but were not read yet. A consumer this far behind will not catch up; it is cut off
 * with a reason, as the daemon cuts off a socket that backs up, instead of holding memory without bound.
 */
export const MAX_BUFFERED_EVENTS = 10_000;

export interface SubscribeOptions {
  /** Only these event types (default: all). */
  types?: readonly StreamEventType[];
  /** Only the events of this run. */
  runId?: string;
  /** Replay the retained events after this id first, then go on live. */
  since?: number;
  maxBuffered?: number;
}

/** The daemon's events as an async iterator. It ends when the connection closes. */
export interface EventSubscription extends AsyncIterableIterator<StreamEvent> {
  /** Settles once the daemon has registered the subscription: later events will all be seen. */
  readonly ready: Promise<void>;
  /** Once ready: whether other nodes share the daemon's store (then events come from several nodes). */
  readonly shared: boolean;
  /** Stops the iteration; the daemon keeps sending until the connection closes, and those are ignored. */
  return(): Promise<IteratorResult<StreamEvent>>;
}

type StreamSource = Pick<DaemonConnection, 'openStream' | 'closeStream'>;

/**
 * Subscribes to the daemon's event stream on `client`'s connection. Iteration ends when the connection
 * closes; it throws a DAEMON_UNAVAILABLE error (see `droppedReason`) when the daemon dropped the stream
 * because it was read too slowly, or when this process did.
 */
export function subscribe(client: StreamSource, options: SubscribeOptions = {}): EventSubscription {
  const maxBuffered = options.maxBuffered ?? MAX_BUFFERED_EVENTS;
  const queue: StreamEvent[] = [];
  let waiter: { resolve: (result: IteratorResult<StreamEvent>) => void; reject: (e: Error) => void } | null =
    null;
  let ended = false;
  let failure: Error | null = null;

  const finish = (error: Error | null): void => {
    if (ended) return;
    ended = true;
    failure = error;
    client.closeStream(stream.id);
    // A waiter exists only while the queue is empty, so it gets the end at once.
    if (!waiter) return;
    const pending = waiter;
    waiter = null;
    if (error) pending.reject(error);
    else pending.resolve({ done: true, value: undefined });
  };

  const stream = client.openStream(
    { types: options.types ? [...options.types] : undefined, runId: options.runId, since: options.since },
    {
      event: (event) => {
        if (ended) return;
        if (event.type === 'stream:dropped') return finish(droppedError(event.data.reason));
        if (waiter) {
          const pending = waiter;
          waiter = null;
          pending.resolve({ done: false, value: event });
          return;
        }
        if (queue.length >= maxBuffered)
          return finish(droppedError(`this process fell more than ${maxBuffered} events behind the stream`));
        queue.push(event);
      },
      closed: () => finish(null),
    },
  );
  let shared = false;
  const ready = stream.ready.then(
    (reply) => {
      shared = reply.shared === true;
    },
    (error: Error) => {
      finish(error);
      throw error;
    },
  );
  ready.catch(() => {}); // surfaced by next() as well; awaiting `ready` is optional

  const subscription: EventSubscription = {
    ready,
    get shared() {
      return shared;
    },
    next(): Promise<IteratorResult<StreamEvent>> {
      const event = queue.shift();
      if (event) return Promise.resolve({ done: false, value: event });
      if (ended) return failure ? Promise.reject(failure) : Promise.resolve({ done: true, value: undefined });
      return new Promise((resolve, reject) => (waiter = { resolve, reject }));
    },
    return(): Promise<IteratorResult<StreamEvent>> {
      queue.length = 0;
      finish(null);
      failure = null;
      return Promise.resolve({ done: true, value: undefined });
    },
    [Symbol.asyncIterator]() {
      return subscription;
    },
  };
  return subscription;
}

function droppedError(reason: string): SchedError {
  return new SchedError('DAEMON_UNAVAILABLE', `The event stream was dropped: ${reason}.`, {
    hint: 'Subscribe again to resume; events published meanwhile are not replayed.',
    details: { dropped: true, reason },
  });
}

/** The reason a stream was dropped for being read too slowly, or undefined for any other error. */
export function droppedReason(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'SchedError') return undefined;
  const details = (error as SchedError).details;
  return details?.dropped === true && typeof details.reason === 'string' ? details.reason : undefined;
}

import { SchedError, type ErrorShape } from '../core/errors.js';
import type {
  EventMessage,
  Method,
  Params,
  RequestMessage,
  ResponseMessage,
  Results,
} from '../ipc/protocol.js';
import type { ClientConnection } from '../ipc/socket-client.js';
import type { DaemonConnection, StreamListener } from './daemon-connection.js';

export type { StreamListener } from './daemon-connection.js';

const START_HINT =
  'Start it with `sched daemon start` (in the background) or `sched daemon run` (in the foreground), or set SCHED_HOME to the home of a running daemon.';

/** A typed client of the daemon's socket protocol: one connection, many concurrent requests. */
export class DaemonClient implements DaemonConnection {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  /** Event streams on this connection, by the id of the `events.subscribe` request that opened them. */
  private readonly streams = new Map<number, StreamListener>();
  private closed = false;

  private constructor(
    private readonly connection: ClientConnection,
    private readonly socketPath: string,
  ) {
    connection.onMessage((message) => this.receive(message as ResponseMessage | EventMessage));
    connection.onClose(() => this.failAll('The sched daemon closed the connection.'));
  }

  static async connect(socketPath: string): Promise<DaemonClient> {
    // Loaded lazily so commands that never reach the daemon do not pay for the transport.
    const { connect } = await import('../ipc/socket-client.js');
    try {
      return new DaemonClient(await connect(socketPath), socketPath);
    } catch (error) {
      const errno = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw new SchedError(
        'DAEMON_UNAVAILABLE',
        `The sched daemon is not running (cannot connect to ${socketPath}: ${errno}).`,
        {
          hint: START_HINT,
          details: { socketPath, errno },
        },
      );
    }
  }

  call<M extends Method>(method: M, params: Params<M>): Promise<Results[M]> {
    if (this.closed) return Promise.reject(this.unavailable('The connection to the daemon is closed.'));
    const id = this.nextId++;
    const request: RequestMessage = { kind: 'request', id, method, params };
    return new Promise<Results[M]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      try {
        this.connection.send(request);
      } catch (error) {
        // Refused before it left (too large or too deep for the daemon): the connection stays usable.
        this.pending.delete(id);
        reject(error as Error);
      }
    });
  }

  /**
   * Sends `events.subscribe` and routes the events tagged with its id to `listener`. The listener is in
   * place before the request leaves, since the daemon may publish an event before its reply is read.
   * `src/client/event-subscription.ts` turns this into an async iterator.
   */
  openStream(
    params: Params<'events.subscribe'>,
    listener: StreamListener,
  ): { id: number; ready: Promise<Results['events.subscribe']> } {
    const id = this.nextId;
    this.streams.set(id, listener);
    const ready = this.call('events.subscribe', params);
    ready.catch(() => this.streams.delete(id));
    return { id, ready };
  }

  /** Stops routing a stream's events (the daemon keeps sending them until the connection closes). */
  closeStream(id: number): void {
    this.streams.delete(id);
  }

  close(): void {
    this.closed = true;
    this.endStreams();
    this.connection.close();
  }

  private receive(message: ResponseMessage | EventMessage): void {
    if (message?.kind === 'event') {
      this.streams.get(message.subscription)?.event(message.event);
      return;
    }
    if (message?.kind !== 'response' || typeof message.id !== 'number') return;
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if (message.ok) waiter.resolve(message.result);
    else waiter.reject(SchedError.fromShape(message.error as ErrorShape));
  }

  private failAll(reason: string): void {
    this.closed = true;
    this.endStreams();
    for (const [id, waiter] of this.pending) {
      this.pending.delete(id);
      waiter.reject(this.unavailable(reason));
    }
  }

  private endStreams(): void {
    const streams = [...this.streams.values()];
    this.streams.clear();
    for (const stream of streams) stream.closed();
  }

  private unavailable(message: string): SchedError {
    return new SchedError('DAEMON_UNAVAILABLE', message, {
      hint: START_HINT,
      details: { socketPath: this.socketPath },
    });
  }
}

import { SchedError, type ErrorShape } from '../core/errors.js';
import type { Method, Params, RequestMessage, ResponseMessage, Results } from '../ipc/protocol.js';
import type { ClientConnection } from '../ipc/transport.js';

const START_HINT = 'Start it with `sched daemon run` (or set SCHED_HOME to the home of a running daemon).';

/** A typed client of the daemon's socket protocol: one connection, many concurrent requests. */
export class DaemonClient {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private closed = false;

  private constructor(
    private readonly connection: ClientConnection,
    private readonly socketPath: string,
  ) {
    connection.onMessage((message) => this.receive(message as ResponseMessage));
    connection.onClose(() => this.failAll('The sched daemon closed the connection.'));
  }

  static async connect(socketPath: string): Promise<DaemonClient> {
    // Loaded lazily so commands that never reach the daemon do not pay for the transport.
    const { connect } = await import('../ipc/transport.js');
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
      this.connection.send(request);
    });
  }

  close(): void {
    this.closed = true;
    this.connection.close();
  }

  private receive(message: ResponseMessage): void {
    if (message?.kind !== 'response') return;
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if (message.ok) waiter.resolve(message.result);
    else waiter.reject(SchedError.fromShape(message.error as ErrorShape));
  }

  private failAll(reason: string): void {
    this.closed = true;
    for (const [id, waiter] of this.pending) {
      this.pending.delete(id);
      waiter.reject(this.unavailable(reason));
    }
  }

  private unavailable(message: string): SchedError {
    return new SchedError('DAEMON_UNAVAILABLE', message, {
      hint: START_HINT,
      details: { socketPath: this.socketPath },
    });
  }
}

import type { Method, Params, Results } from '../ipc/protocol.js';
import { DaemonClient } from './daemon-client.js';
import type { DaemonConnection } from './daemon-connection.js';
import { subscribe, type EventSubscription, type SubscribeOptions } from './event-subscription.js';
import type { RemoteTarget } from './https-connection.js';

/** This host's daemon, by its Unix socket. */
export interface SocketTarget {
  socketPath: string;
}

/** Where a client connects: this host's daemon by its socket, or a daemon's HTTPS API with a token. */
export type ClientTarget = SocketTarget | RemoteTarget;

/**
 * A typed client of a sched daemon, over its Unix socket or its HTTPS API: the same requests (every
 * `Method` of the protocol, its params and result types), the same errors (SchedError with the same
 * codes), and its events as an async iterator, whichever the transport.
 *
 * ```ts
 * const client = await SchedClient.connect({ url: 'https://sched.example.com:8443', token });
 * const job = await client.call('job.add', { input: { name: 'nightly', cron: '0 3 * * *', argv: ['./backup.sh'] } });
 * for await (const event of client.subscribe({ types: ['run:finished'] })) console.log(event.data.state);
 * client.close();
 * ```
 */
export class SchedClient {
  private constructor(
    private readonly connection: DaemonConnection,
    /** The socket path or the API's URL: where this client's requests go. */
    readonly address: string,
  ) {}

  /**
   * Connects to the daemon. Over the socket a daemon that is not running is reported here (exit 7's
   * DAEMON_UNAVAILABLE); over HTTPS, connections are made by the first request, which reports it.
   */
  static async connect(target: ClientTarget): Promise<SchedClient> {
    if ('socketPath' in target)
      return new SchedClient(await DaemonClient.connect(target.socketPath), target.socketPath);
    // Loaded only for a remote daemon: undici is most of what the HTTPS side costs to load.
    const { HttpsConnection } = await import('./https-connection.js');
    const connection = new HttpsConnection(target);
    return new SchedClient(connection, connection.url);
  }

  /** Makes one request; rejects with the daemon's SchedError when it refuses. */
  call<M extends Method>(method: M, params: Params<M>): Promise<Results[M]> {
    return this.connection.call(method, params);
  }

  /**
   * The daemon's events from now on (or, with `since`, from after that event id). Iteration ends when the
   * client is closed or the daemon ends the stream; `return()` (or `break`) stops it.
   */
  subscribe(options: SubscribeOptions = {}): EventSubscription {
    return subscribe(this.connection, options);
  }

  /** Ends its requests and event streams; every subscription's iteration ends. */
  close(): void {
    this.connection.close();
  }
}

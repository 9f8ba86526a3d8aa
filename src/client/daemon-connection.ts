import type { Method, Params, Results, StreamEvent } from '../ipc/protocol.js';

/** Where the events of one `events.subscribe` go; `closed` is called once, when the stream ends. */
export interface StreamListener {
  event(event: StreamEvent): void;
  closed(): void;
}

/**
 * One link to a daemon: its Unix socket (DaemonClient) or its HTTPS API (HttpsConnection). Requests take
 * the same params and give the same results and errors either way, so nothing above knows which it has.
 */
export interface DaemonConnection {
  call<M extends Method>(method: M, params: Params<M>): Promise<Results[M]>;
  /**
   * Starts an `events.subscribe` stream whose events go to `listener`; `ready` settles with the daemon's
   * reply. The listener is in place before the request leaves: an event may come before the reply.
   */
  openStream(
    params: Params<'events.subscribe'>,
    listener: StreamListener,
  ): { id: number; ready: Promise<Results['events.subscribe']> };
  /** Stops delivering a stream's events; its listener is not told. */
  closeStream(id: number): void;
  /** Ends every request and stream; each stream's listener is told it closed. */
  close(): void;
}

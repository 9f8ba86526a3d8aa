/** How long a client may take over each part of a request: a slow or stalled one holds a connection no longer. */
export interface ApiPatience {
  /** From connecting to a finished TLS handshake (Node's default is 2 minutes). */
  handshakeMs: number;
  /** From a request's first byte to the end of its headers. */
  headersMs: number;
  /** From a request's first byte to its last. */
  requestMs: number;
}

export const API_PATIENCE: ApiPatience = { handshakeMs: 10_000, headersMs: 10_000, requestMs: 30_000 };

// How often the server looks for requests past their time. Node's default, 30 s, lets a stalled request
// outstay its deadline by as much again.
const DEADLINE_CHECK_MS = 1_000;

/** The options of Node's HTTP server that hold its clients' requests to `patience`. */
export function requestDeadlines(patience: ApiPatience) {
  return {
    headersTimeout: patience.headersMs,
    requestTimeout: patience.requestMs,
    connectionsCheckingInterval: DEADLINE_CHECK_MS,
  };
}

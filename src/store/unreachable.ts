import { SchedError } from '../core/errors.js';

/** Socket-level failures: the server is down, restarting, or cut off. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is going away or not yet taking work: class 08 (connection exception),
 * admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down).
 */
const UNAVAILABLE_STATES = /^(08...|57P01|57P02|57P03)$/;

/** What node-postgres says when the server closes the connection under a query or refuses a client. */
const CLOSED_CONNECTION =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed/i;

/**
 * True when a store call failed because the store could not be reached, not because it refused the
 * change: the failure a node goes into degraded mode on. Walks the `cause` chain (drizzle wraps driver
 * errors). SQLite, a local file, never fails so; peer mode's replicated store does when this node reaches
 * no majority of the voters (NO_QUORUM), which is the same thing to the node.
 */
export function isStoreUnreachable(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof SchedError)
      return current.code === 'STORE_UNAVAILABLE' || current.code === 'NO_QUORUM';
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.test(code))) return true;
    if (CLOSED_CONNECTION.test(current.message)) return true;
    if (current instanceof AggregateError && current.errors.some(isStoreUnreachable)) return true;
  }
  return false;
}

/**
 * What the driver said, `connect ECONNREFUSED 127.0.0.1:5432`: the innermost cause. The wrappers' messages
 * carry the failed statement and its parameters, which may hold secrets (a job's environment, say).
 */
export function unreachableReason(error: Error): string {
  let innermost = error;
  while (innermost.cause instanceof Error) innermost = innermost.cause;
  return innermost.message;
}

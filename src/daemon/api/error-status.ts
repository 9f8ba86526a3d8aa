import type { ErrorCode, ErrorShape } from '../../core/errors.js';

/** The HTTP status of each error code; adding a code without one here fails to compile. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  INVALID_SCHEDULE: 400,
  UNKNOWN_TIMEZONE: 400,
  AT_IN_PAST: 400,
  EMPTY_COMMAND: 400,
  RUN_ID_AMBIGUOUS: 400,
  UNKNOWN_COMMAND: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNAUTHENTICATED: 401,
  UNAUTHORIZED: 403,
  JOB_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  NAME_TAKEN: 409,
  IDEMPOTENCY_MISMATCH: 409,
  INVALID_STATE: 409,
  HAS_DEPENDENTS: 409,
  DAEMON_ALREADY_RUNNING: 409,
  FENCED: 409,
  NO_MATCHING_NODE: 409,
  SECRET_KEY_MISMATCH: 409,
  // Only an If-Match names a version, so a stale one is a failed precondition.
  VERSION_CONFLICT: 412,
  RATE_LIMITED: 429,
  DAEMON_UNAVAILABLE: 503,
  STORE_UNAVAILABLE: 503,
  NO_QUORUM: 503,
  IDENTITY_PROVIDER_UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** The refusals that say when they will end, in their details' retryAfterMs. */
const WAITED_OUT = new Set<ErrorCode>(['RATE_LIMITED', 'IDENTITY_PROVIDER_UNAVAILABLE']);

/** Headers an error's status calls for: when to come back, or how to authenticate. */
export function errorHeaders(shape: ErrorShape): Record<string, string> {
  if (shape.code === 'UNAUTHENTICATED') return { 'www-authenticate': 'Bearer' };
  const retryAfterMs = shape.details?.['retryAfterMs'];
  if (WAITED_OUT.has(shape.code) && typeof retryAfterMs === 'number')
    return { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) };
  return {};
}

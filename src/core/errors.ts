/**
 * A user-facing failure with a stable code. It crosses the socket as `{ code, message, details }`
 * and is rebuilt from `code` on the other side, so nothing may depend on `instanceof` across processes.
 */
export const ERROR_CODES = {
  VALIDATION_FAILED: 2,
  INVALID_SCHEDULE: 2,
  UNKNOWN_TIMEZONE: 2,
  AT_IN_PAST: 2,
  PAYLOAD_TOO_LARGE: 2,
  EMPTY_COMMAND: 2,
  /** A shortened run id that more than one run's id starts with. */
  RUN_ID_AMBIGUOUS: 2,
  /** `sched lss`: no such command. The nearest ones are named, never run. */
  UNKNOWN_COMMAND: 2,
  JOB_NOT_FOUND: 3,
  RUN_NOT_FOUND: 3,
  NAME_TAKEN: 4,
  VERSION_CONFLICT: 4,
  IDEMPOTENCY_MISMATCH: 4,
  INVALID_STATE: 4,
  /** Cancelling a job that others run after (`--after`) would strand them; `--force` does it anyway. */
  HAS_DEPENDENTS: 4,
  DAEMON_ALREADY_RUNNING: 4,
  /** A node fired from a shard map that a newer one has replaced; the fire was refused. */
  FENCED: 4,
  /** A run was asked for, and no live node of the cluster may run the job (its `--on` labels). */
  NO_MATCHING_NODE: 4,
  /** Stored secrets are sealed under a key the daemon's key file does not hold (or were altered). */
  SECRET_KEY_MISMATCH: 4,
  /** An API request without a valid token (missing, unknown, revoked or expired). */
  UNAUTHENTICATED: 5,
  UNAUTHORIZED: 5,
  RATE_LIMITED: 6,
  DAEMON_UNAVAILABLE: 7,
  /** The daemon's store (a PostgreSQL server) cannot be reached. */
  STORE_UNAVAILABLE: 7,
  /** Peer mode: a write needs a majority of the voters, and this node cannot reach one (or no leader is known). */
  NO_QUORUM: 7,
  /** An API request's JWT cannot be checked: its OIDC issuer's keys (the JWKS) cannot be fetched. */
  IDENTITY_PROVIDER_UNAVAILABLE: 7,
  INTERNAL: 1,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorShape {
  code: ErrorCode;
  message: string;
  hint?: string;
  details?: Record<string, unknown>;
}

export class SchedError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { hint?: string; details?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = 'SchedError';
    this.code = code;
    this.hint = options.hint;
    this.details = options.details ?? {};
  }

  get exitCode(): number {
    return ERROR_CODES[this.code];
  }

  toShape(): ErrorShape {
    return { code: this.code, message: this.message, hint: this.hint, details: this.details };
  }

  static fromShape(shape: ErrorShape): SchedError {
    const code = shape.code in ERROR_CODES ? shape.code : 'INTERNAL';
    return new SchedError(code, shape.message, { hint: shape.hint, details: shape.details });
  }
}

export function isSchedError(value: unknown): value is SchedError {
  return value instanceof SchedError;
}

/** Whether `error` carries `code`, a SchedError or one rebuilt from another process (by its code alone). */
export function hasErrorCode(error: unknown, code: ErrorCode): boolean {
  return (error as { code?: unknown } | null)?.code === code;
}

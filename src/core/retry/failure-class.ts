import type { RetryPolicy } from '../job.js';
import type { RunOutcome } from '../run.js';

/** `retryable`: another attempt may well succeed. `permanent`: it would fail the same way, so none is made. */
export type FailureClass = 'retryable' | 'permanent';

/** How the job's target was run: its exit code or its status is what `--retry-on` lists match. */
export type TargetKind = 'argv' | 'shell' | 'http';

export interface FailureVerdict {
  failureClass: FailureClass;
  /** Why, in words for `history`, `why` and `show RUN`. */
  reason: string;
}

export type FailureFacts = Pick<RunOutcome, 'state' | 'exitCode' | 'httpStatus' | 'cause'>;

/** Statuses that say "not now" rather than "never": timeouts, throttling, too early, and server errors. */
const RETRYABLE_CLIENT_STATUSES: ReadonlySet<number> = new Set([408, 425, 429]);
/** What `/bin/sh -c` exits with when the command it was given is missing or cannot be run. */
const SHELL_NOT_FOUND = 127;
const SHELL_NOT_EXECUTABLE = 126;

/**
 * The class of a failed, timed-out or lost attempt. The job's `--no-retry-on` and `--retry-on` lists come
 * first (their codes are exit codes of a command job and statuses of an HTTP job); then a timeout, a lost
 * run, a refused connection, a 5xx, 408, 425, 429 and a non-zero exit are retryable, while any other 4xx, a
 * command that does not exist or cannot run, and a request that cannot be built are permanent.
 */
export function classifyFailure(
  facts: FailureFacts,
  target: TargetKind,
  policy: Pick<RetryPolicy, 'retryOn' | 'noRetryOn'>,
): FailureVerdict {
  if (facts.cause?.kind === 'breaker-open')
    return retryable('the circuit breaker of the origin was open, so no request went out');
  const code = target === 'http' ? (facts.httpStatus ?? null) : facts.exitCode;
  const named = target === 'http' ? `HTTP ${code}` : `exit ${code}`;
  if (code !== null && policy.noRetryOn?.includes(code))
    return permanent(`${named} is listed in --no-retry-on`);
  if (code !== null && policy.retryOn?.includes(code)) return retryable(`${named} is listed in --retry-on`);
  if (facts.state === 'timed_out') return retryable('it timed out');
  if (facts.state === 'lost') return retryable('the run was lost');
  switch (facts.cause?.kind) {
    case 'not-found':
      return permanent('the command does not exist');
    case 'not-executable':
      return permanent('the command cannot be executed');
    case 'invalid-request':
      return permanent('the request is invalid');
  }
  if (target === 'http') return classifyStatus(facts.httpStatus ?? null);
  if (target === 'shell' && code === SHELL_NOT_FOUND)
    return permanent('exit 127: the shell did not find a command the script runs');
  if (target === 'shell' && code === SHELL_NOT_EXECUTABLE)
    return permanent('exit 126: the shell could not execute a command the script runs');
  return retryable(code === null ? 'the command ended abnormally' : `${named} is not 0`);
}

function classifyStatus(status: number | null): FailureVerdict {
  if (status === null) return retryable('the request got no response');
  if (status >= 500) return retryable(`HTTP ${status} is a server error`);
  if (RETRYABLE_CLIENT_STATUSES.has(status)) return retryable(`HTTP ${status} asks to try again later`);
  if (status >= 400) return permanent(`HTTP ${status} is a client error: the same request would fail again`);
  return retryable(`HTTP ${status} is not an expected status`);
}

function retryable(reason: string): FailureVerdict {
  return { failureClass: 'retryable', reason };
}

function permanent(reason: string): FailureVerdict {
  return { failureClass: 'permanent', reason };
}

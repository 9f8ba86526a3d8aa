import { maskResponseHeaders } from '../../core/secrets/mask.js';
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';
import type { HttpTarget } from '../../core/job.js';
import { systemClock, type Clock } from '../clock.js';
import type { FailureCause, RunOutcome } from '../../core/run.js';
import type { BreakerStatus } from '../../ipc/protocol.js';
import { BreakerRegistry, type BreakerTicket, type BreakerVerdict } from './breaker-registry.js';
import type { ExecutorEvents } from './command-executor.js';
import { describeExpected, statusMatches } from './expected-status.js';
import { describeNetworkError, errorCode } from './network-error.js';
import { RequestAddresses, type RequestAddress } from './request-address.js';
import { flattenHeaders, readBodyHead } from './response-body.js';
import { ExecutorSignals } from './executor-signals.js';
import { timedOutAfter } from './timed-out.js';

export interface HttpExecution {
  runId: string;
  fence: number;
  target: HttpTarget;
  /** JSON text of the job's payload, sent as the request body. */
  body: string | null;
  timeoutMs: number | null;
}

export interface HttpExecutorOptions {
  /** The clock for breaker cool-downs, run timestamps and timeouts (default the system's). */
  clock?: Clock;
  /** How long an idle keep-alive connection is kept (the server's `Keep-Alive: timeout` may lower it). */
  keepAliveTimeoutMs?: number;
  /** Connections per origin; null is unbounded, so concurrent runs never queue behind each other. */
  connectionsPerOrigin?: number | null;
}

/** Without a job timeout undici's own header and body timeouts still end a request that went silent. */
const DEFAULT_IO_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 30_000;
/** Aborted requests settle at once; this only bounds stop() if one somehow does not. */
const STOP_WAIT_MS = 5_000;

type AbortCause = { kind: 'timeout'; afterMs: number } | { kind: 'kill'; reason: string };

interface InFlight {
  controller: AbortController;
  /** Set by the first of timeout, kill or stop; decides the outcome whatever error undici then reports. */
  cause: AbortCause | null;
  started: boolean;
}

interface Result {
  outcome: RunOutcome;
  verdict: BreakerVerdict;
}

/**
 * Runs HTTP jobs on the main thread (requests are cheap, unlike spawns) through one keep-alive Agent,
 * which pools connections per origin. A circuit breaker per origin fails runs fast while it is open.
 */
export class HttpExecutor {
  private readonly agent: Agent;
  private readonly clock: Clock;
  private readonly breakers = new BreakerRegistry();
  private readonly addresses = new RequestAddresses();
  private readonly running = new Map<string, InFlight>();
  private readonly signals: ExecutorSignals;
  private stopped: Promise<void> | null = null;

  constructor(options: HttpExecutorOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.signals = new ExecutorSignals(this.clock);
    this.agent = new Agent({
      keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
      connections: options.connectionsPerOrigin ?? null,
    });
  }

  /** Returns a function that removes the listener. */
  on<E extends keyof ExecutorEvents>(event: E, listener: ExecutorEvents[E]): () => void {
    return this.signals.on(event, listener);
  }

  /**
   * Never throws; every run gets `started` (pid null) then `finished`, both after run() returns. A run id
   * that is already executing is ignored: its first execution will report it.
   */
  run(execution: HttpExecution): void {
    const { runId } = execution;
    if (this.running.has(runId)) return;
    if (this.stopped !== null) {
      this.finishWithoutRequest(runId, 'lost', 'http executor is stopped');
      return;
    }
    let address: RequestAddress;
    try {
      address = this.addresses.of(execution.target.url);
    } catch (error) {
      this.finishWithoutRequest(runId, 'failed', `invalid request: ${String(error)}`, {
        kind: 'invalid-request',
      });
      return;
    }
    // Admission happens now, not after an await, so concurrent runs see the half-open trial taken.
    const ticket = this.breakers.admit(address.origin, execution.target.breaker, this.clock.now());
    if (!ticket.admitted) {
      this.finishWithoutRequest(runId, 'failed', ticket.reason, {
        kind: 'breaker-open',
        retryAt: ticket.retryAt,
      });
      return;
    }
    const inFlight: InFlight = { controller: new AbortController(), cause: null, started: false };
    this.running.set(runId, inFlight);
    void this.execute(execution, address, inFlight, ticket);
  }

  /** Aborts the request; the run becomes `cancelled` with this reason. */
  kill(runId: string, reason: string): boolean {
    const inFlight = this.running.get(runId);
    if (inFlight === undefined) return false;
    abort(inFlight, { kind: 'kill', reason });
    return true;
  }

  runningCount(): number {
    return this.running.size;
  }

  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /** Breakers that are open, half-open or counting failures. */
  troubledBreakers(): BreakerStatus[] {
    return this.breakers.troubled();
  }

  /** The breaker of the URL's origin; closed with no failures when the origin was never troubled. */
  breakerStatus(url: string): BreakerStatus {
    return this.breakers.status(url);
  }

  /** Aborts everything still running, waits for their `finished`, then closes the connections. Idempotent. */
  stop(options: { killReason?: string } = {}): Promise<void> {
    this.stopped ??= this.shutdown(options.killReason ?? 'executor stopped');
    return this.stopped;
  }

  private async shutdown(killReason: string): Promise<void> {
    for (const runId of this.running.keys()) this.kill(runId, killReason);
    await this.signals.waitUntilIdle(this.running.size === 0, STOP_WAIT_MS);
    for (const runId of this.running.keys()) {
      this.running.delete(runId);
      this.signals.emit(
        'finished',
        runId,
        outcomeOf('lost', this.clock.now(), 'executor stopped before the run finished'),
      );
    }
    await this.agent.destroy().catch(() => undefined);
  }

  private async execute(
    execution: HttpExecution,
    address: RequestAddress,
    inFlight: InFlight,
    ticket: BreakerTicket & { admitted: true },
  ): Promise<void> {
    let result: Result;
    try {
      result = await this.perform(execution, address, inFlight);
    } catch (error) {
      // perform() classifies every request error itself; reaching here is a bug, but the run must still end.
      result = {
        outcome: outcomeOf('failed', this.clock.now(), `http executor error: ${String(error)}`),
        verdict: 'none',
      };
    }
    // stop() gave up waiting and already reported this run lost; a second `finished` would contradict it.
    if (this.running.get(execution.runId) !== inFlight) return;
    this.breakers.record(ticket, result.verdict, execution.target.breaker, this.clock.now());
    this.running.delete(execution.runId);
    if (!inFlight.started) this.signals.emit('started', execution.runId, null, result.outcome.finishedAt);
    this.signals.emit('finished', execution.runId, result.outcome);
    this.signals.notifyIfIdle(this.running.size === 0);
  }

  private async perform(
    execution: HttpExecution,
    { origin, path }: RequestAddress,
    inFlight: InFlight,
  ): Promise<Result> {
    const { target, timeoutMs } = execution;
    const ioTimeoutMs = timeoutMs ?? DEFAULT_IO_TIMEOUT_MS;
    const cancelTimeout =
      timeoutMs === null
        ? undefined
        : this.clock.setTimer(timeoutMs, () => abort(inFlight, { kind: 'timeout', afterMs: timeoutMs }));
    try {
      await Promise.resolve(); // so `started` never fires inside run()
      const pending = this.agent.request({
        origin,
        path,
        method: target.method as Dispatcher.HttpMethod,
        headers: requestHeaders(execution),
        body: execution.body,
        signal: inFlight.controller.signal,
        headersTimeout: ioTimeoutMs,
        bodyTimeout: ioTimeoutMs,
      });
      inFlight.started = true;
      this.signals.emit('started', execution.runId, null, this.clock.now());
      const response = await pending;
      const body = await readBodyHead(response.body);
      // Stored with the run and shown by `sched logs`: a session cookie or token the server sends back is not.
      const responseHeaders = maskResponseHeaders(flattenHeaders(response.headers));
      const matched = statusMatches(response.statusCode, target.expect);
      const error = matched
        ? null
        : `HTTP ${response.statusCode} (expected ${describeExpected(target.expect)})`;
      return {
        outcome: {
          ...outcomeOf(matched ? 'succeeded' : 'failed', this.clock.now(), error),
          httpStatus: response.statusCode,
          stdoutTail: body,
          responseHeaders,
        },
        verdict: matched ? 'success' : 'failure',
      };
    } catch (error) {
      return this.classifyError(error, inFlight, origin, ioTimeoutMs);
    } finally {
      cancelTimeout?.();
    }
  }

  private classifyError(error: unknown, inFlight: InFlight, origin: string, ioTimeoutMs: number): Result {
    const now = this.clock.now();
    const cause = inFlight.cause;
    if (cause?.kind === 'kill')
      return { outcome: outcomeOf('cancelled', now, cause.reason), verdict: 'none' };
    if (cause?.kind === 'timeout') {
      return {
        outcome: outcomeOf('timed_out', now, timedOutAfter(cause.afterMs)),
        verdict: 'failure',
      };
    }
    const code = errorCode(error);
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      const waitingFor = code === 'UND_ERR_HEADERS_TIMEOUT' ? 'response headers' : 'response body data';
      const message = `${timedOutAfter(ioTimeoutMs)} waiting for ${waitingFor}`;
      return { outcome: outcomeOf('timed_out', now, message), verdict: 'failure' };
    }
    // A request undici refuses to build (a bad header value, say) is the job's fault, not the origin's.
    if (code === 'UND_ERR_INVALID_ARG' || code === 'UND_ERR_NOT_SUPPORTED') {
      return {
        outcome: {
          ...outcomeOf('failed', now, `invalid request: ${String(error)}`),
          cause: { kind: 'invalid-request' },
        },
        verdict: 'none',
      };
    }
    return { outcome: outcomeOf('failed', now, describeNetworkError(error, origin)), verdict: 'failure' };
  }

  /** A run that never reaches the network still reports started then finished, like one that did. */
  private finishWithoutRequest(
    runId: string,
    state: 'failed' | 'lost',
    error: string,
    cause?: FailureCause,
  ): void {
    queueMicrotask(() => {
      const at = this.clock.now();
      this.signals.emit('started', runId, null, at);
      this.signals.emit('finished', runId, { ...outcomeOf(state, at, error), ...(cause && { cause }) });
    });
  }
}

/**
 * The target's headers plus ours. Ours replace any the user set under another casing: the fence and
 * idempotency key must be the run's, or the receiver cannot deduplicate or reject stale attempts.
 */
function requestHeaders(execution: HttpExecution): Record<string, string> {
  const ours: Record<string, string> = {
    'Idempotency-Key': execution.runId,
    'X-Sched-Fence': String(execution.fence),
  };
  const oursLower = new Set(Object.keys(ours).map((name) => name.toLowerCase()));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(execution.target.headers)) {
    if (!oursLower.has(name.toLowerCase())) headers[name] = value;
  }
  const hasContentType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  if (execution.body !== null && !hasContentType) headers['Content-Type'] = 'application/json';
  return { ...headers, ...ours };
}

function abort(inFlight: InFlight, cause: AbortCause): void {
  if (inFlight.cause !== null) return; // the first reason wins
  inFlight.cause = cause;
  inFlight.controller.abort(new Error(cause.kind === 'kill' ? cause.reason : 'timed out'));
}

function outcomeOf(state: RunOutcome['state'], finishedAt: number, error: string | null): RunOutcome {
  return {
    state,
    finishedAt,
    exitCode: null,
    httpStatus: null,
    signal: null,
    error,
    stdoutTail: '',
    stderrTail: '',
    responseHeaders: null,
  };
}

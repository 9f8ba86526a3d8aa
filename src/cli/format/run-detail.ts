import type { ChalkInstance } from 'chalk';
import { formatDuration } from '../../core/duration.js';
import { isPermanentError } from '../../core/retry/failure-note.js';
import type { Run, RunState, RunSummary } from '../../core/run.js';
import { colourRunState } from './state.js';
import { formatRelative } from './time.js';

/** Final states that a retry policy answers with another attempt; without one, the run is dead. */
const RETRYABLE_STATES: ReadonlySet<RunState> = new Set(['failed', 'timed_out', 'lost']);

/** How long the run took, or has been running so far; null before it started. */
export function runDurationMs(run: RunSummary, now: number): number | null {
  if (run.startedAt === null) return null;
  return (run.finishedAt ?? now) - run.startedAt;
}

/** `exit 0`, `signal SIGKILL`, `HTTP 503`, or '' while the run has no outcome yet. */
export function describeExit(run: RunSummary): string {
  if (run.httpStatus !== null) return `HTTP ${run.httpStatus}`;
  if (run.exitCode !== null) return `exit ${run.exitCode}`;
  if (run.signal !== null) return `signal ${run.signal}`;
  return '';
}

/**
 * The state, and where a run stands among its attempts: `failed → retried` (a later attempt took
 * over), `failed (dead)` (no attempt follows: the dead letters `history --status failed` lists; `failed
 * (permanent)` when the failure's class kept a retry from being made),
 * `scheduled (due in 20s)` (a retry waiting out its backoff).
 */
export function describeRunState(run: RunSummary, now: number, painter?: ChalkInstance): string {
  const state = colourRunState(run.state, painter);
  if (run.retriedBy !== null) return `${state} → retried`;
  if (RETRYABLE_STATES.has(run.state))
    return `${state} (${isPermanentError(run.error) ? 'permanent' : 'dead'})`;
  if (run.state === 'scheduled' && run.dueAt !== run.scheduledFor && run.dueAt > now)
    return `${state} (due ${formatRelative(run.dueAt, now)})`;
  return state;
}

/** `Run 0193… of nightly, attempt 1 on web-1: failed → retried, exit 2, took 1s (error: …)` */
export function renderRunHeadline(run: RunSummary, now: number, painter?: ChalkInstance): string {
  const facts = [describeRunState(run, now, painter)];
  const exit = describeExit(run);
  if (exit) facts.push(exit);
  const duration = runDurationMs(run, now);
  if (duration !== null)
    facts.push(`${run.finishedAt === null ? 'running for' : 'took'} ${formatDuration(duration)}`);
  const error = run.error ? ` (error: ${run.error})` : '';
  return `Run ${run.id} of ${run.jobName}, attempt ${run.attempt} on ${run.node}: ${facts.join(', ')}${error}`;
}

/** An HTTP run's response headers, one `name: value` a line, as curl -i shows them. */
export function renderResponseHeaders(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
}

/**
 * `… 12,345 bytes of stdout cut (kept the last 64 KiB)`, one line for each stream whose tail left out
 * the start of what the run wrote; none when all was kept or the run predates the count.
 */
export function describeCutOutput(
  run: Pick<Run, 'stdoutTail' | 'stderrTail' | 'stdoutBytes' | 'stderrBytes'>,
): string[] {
  const lines: string[] = [];
  for (const [stream, tail, total] of [
    ['stdout', run.stdoutTail, run.stdoutBytes],
    ['stderr', run.stderrTail, run.stderrBytes],
  ] as const) {
    const cut = (total ?? 0) - Buffer.byteLength(tail);
    if (cut > 0)
      lines.push(
        `… ${cut.toLocaleString('en-US')} bytes of ${stream} cut (kept the last ${formatKiB(Buffer.byteLength(tail))})`,
      );
  }
  return lines;
}

function formatKiB(bytes: number): string {
  return `${Math.round(bytes / 1024)} KiB`;
}

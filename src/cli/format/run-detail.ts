import type { ChalkInstance } from 'chalk';
import { formatDuration } from '../../core/duration.js';
import type { RunSummary } from '../../core/run.js';
import { colourRunState } from './state.js';

/** How long the run took, or has been running so far; null before it started. */
export function runDurationMs(run: RunSummary, now: number): number | null {
  if (run.startedAt === null) return null;
  return (run.finishedAt ?? now) - run.startedAt;
}

/** `exit 0`, `signal SIGKILL`, or '' while the run has no outcome yet. */
export function describeExit(run: RunSummary): string {
  if (run.exitCode !== null) return `exit ${run.exitCode}`;
  if (run.signal !== null) return `signal ${run.signal}`;
  return '';
}

/** `Run 0193… of nightly, attempt 1: failed, exit 2, took 1s (error: …)` */
export function renderRunHeadline(run: RunSummary, now: number, painter?: ChalkInstance): string {
  const facts = [colourRunState(run.state, painter)];
  const exit = describeExit(run);
  if (exit) facts.push(exit);
  const duration = runDurationMs(run, now);
  if (duration !== null)
    facts.push(`${run.finishedAt === null ? 'running for' : 'took'} ${formatDuration(duration)}`);
  const error = run.error ? ` (error: ${run.error})` : '';
  return `Run ${run.id} of ${run.jobName}, attempt ${run.attempt}: ${facts.join(', ')}${error}`;
}

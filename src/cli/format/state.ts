import chalk, { type ChalkInstance } from 'chalk';
import type { JobStatus } from '../../core/job-status.js';
import type { RunState } from '../../core/run.js';

/**
 * Colour carries the state at a glance; the word is always there too, so nothing is lost when chalk
 * turns colour off (not a TTY, NO_COLOR) or for readers who do not see the colours.
 */
const JOB_STATE_COLOURS: Record<JobStatus, (painter: ChalkInstance) => ChalkInstance> = {
  active: (c) => c.green,
  done: (c) => c.blue,
  paused: (c) => c.yellow,
  cancelled: (c) => c.gray,
};

const RUN_STATE_COLOURS: Record<RunState, (painter: ChalkInstance) => ChalkInstance> = {
  scheduled: (c) => c.gray,
  running: (c) => c.cyan,
  succeeded: (c) => c.green,
  failed: (c) => c.red,
  timed_out: (c) => c.red,
  cancelled: (c) => c.gray,
  lost: (c) => c.magenta,
};

/** `painter` is chalk for stdout by default; pass `chalkStderr` for text bound for stderr. */
export function colourJobState(state: JobStatus, painter: ChalkInstance = chalk): string {
  return JOB_STATE_COLOURS[state](painter)(state);
}

export function colourRunState(state: RunState, painter: ChalkInstance = chalk): string {
  return RUN_STATE_COLOURS[state](painter)(state);
}

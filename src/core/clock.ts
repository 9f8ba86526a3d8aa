/** Cancels a timer; calling it after the timer fired, or twice, does nothing. */
export type CancelTimer = () => void;

/**
 * Where the daemon and the cluster get time from: a port, so a test can hand them a fake one and run
 * hours of schedule in milliseconds. Core itself never reads a clock (it is handed `now`); the type
 * lives here because both the daemon and the cluster, which may not import each other, take one.
 */
export interface Clock {
  /** Wall time in ms since the epoch, what instants are stored in. It may step back or jump forward. */
  now(): number;
  /** Elapsed-time ms from an arbitrary origin; never goes back, so durations and lease windows use it. */
  monotonic(): number;
  /** Calls `fire` once after `delayMs` of monotonic time (a wall step does not move it). */
  setTimer(delayMs: number, fire: () => void): CancelTimer;
}

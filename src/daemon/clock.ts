import { performance } from 'node:perf_hooks';
import type { CancelTimer, Clock } from '../core/clock.js';

export type { CancelTimer, Clock } from '../core/clock.js';

/** The real clock; the only place in src/daemon and src/cluster that reads the system's time or arms a timer. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimer(delayMs, fire) {
    const timer = setTimeout(fire, Math.max(0, delayMs));
    return () => clearTimeout(timer);
  },
};

/** Resolves after `delayMs` of monotonic time, or at once when `signal` aborts. */
export function sleep(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const cancel = clock.setTimer(delayMs, done);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** What `settledWithin` gives when the time ran out first. */
export const TIMED_OUT = Symbol('timed out');

/**
 * What `promise` gives, or TIMED_OUT once `ms` of monotonic time pass first (the promise goes on; its
 * rejection after that is its owner's to handle).
 */
export function settledWithin<T>(
  clock: Clock,
  promise: Promise<T>,
  ms: number,
): Promise<T | typeof TIMED_OUT> {
  let cancel: CancelTimer = () => undefined;
  const late = new Promise<typeof TIMED_OUT>((resolve) => {
    cancel = clock.setTimer(ms, () => resolve(TIMED_OUT));
  });
  return Promise.race([promise, late]).finally(cancel);
}

/** Like sleep, but an endless delay waits for the signal alone (no timer is armed for it). */
export function pauseFor(clock: Clock, delayMs: number, signal: AbortSignal): Promise<void> {
  if (Number.isFinite(delayMs)) return sleep(clock, delayMs, signal);
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Calls `fire` once the wall clock reads `wallMs` or later. Timers run on monotonic time, so one armed
 * before the wall clock stepped back wakes early: it is re-armed from the new wall time. One armed
 * before a jump forward wakes when its delay is up, late by the jump, and fires then.
 */
export function wallTimer(clock: Clock, wallMs: number, fire: () => void): CancelTimer {
  let cancel: CancelTimer = () => undefined;
  let cancelled = false;
  const arm = (): void => {
    cancel = clock.setTimer(Math.max(0, wallMs - clock.now()), () => {
      if (cancelled) return;
      if (clock.now() >= wallMs) fire();
      else arm();
    });
  };
  arm();
  return () => {
    cancelled = true;
    cancel();
  };
}

/** Resolves once the wall clock reads `wallMs` or later (see `wallTimer`), or at once when `signal` aborts. */
export function sleepUntil(clock: Clock, wallMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const cancel = wallTimer(clock, wallMs, done);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

import type { Clock } from '../clock.js';
import type { ExecutorEvents } from './command-executor.js';

/**
 * The listener and idle-waiting plumbing every executor shares: typed `started`/`finished`/`output`
 * listeners that cannot break the executor by throwing, and waiters for "nothing runs any more".
 */
export class ExecutorSignals {
  private readonly listeners: { [E in keyof ExecutorEvents]: Set<ExecutorEvents[E]> } = {
    started: new Set(),
    finished: new Set(),
    output: new Set(),
  };
  private readonly idleWaiters = new Set<() => void>();

  constructor(private readonly clock: Clock) {}

  /** Returns a function that removes the listener. */
  on<E extends keyof ExecutorEvents>(event: E, listener: ExecutorEvents[E]): () => void {
    this.listeners[event].add(listener);
    return () => this.listeners[event].delete(listener);
  }

  emit<E extends keyof ExecutorEvents>(event: E, ...args: Parameters<ExecutorEvents[E]>): void {
    for (const listener of this.listeners[event]) {
      try {
        (listener as (...values: Parameters<ExecutorEvents[E]>) => void)(...args);
      } catch (error) {
        // A throwing listener is the caller's bug; surface it without skipping our bookkeeping.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** Resolves once `notifyIdle` is called, or after `limitMs`, whichever comes first. */
  waitUntilIdle(idle: boolean, limitMs: number): Promise<void> {
    if (idle) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        cancelTimer();
        this.idleWaiters.delete(done);
        resolve();
      };
      const cancelTimer = this.clock.setTimer(limitMs, done);
      this.idleWaiters.add(done);
    });
  }

  notifyIfIdle(idle: boolean): void {
    if (idle) for (const waiter of [...this.idleWaiters]) waiter();
  }
}

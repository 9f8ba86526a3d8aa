import type { CancelTimer, Clock } from '../core/clock.js';

/** Which part of a round failed, for 'member:error'. */
export type MemberStep = 'heartbeat' | 'lease' | 'map' | 'publish' | 'round' | 'leave';

export class RoundAbandoned extends Error {
  constructor() {
    super('the round was abandoned');
  }
}

/**
 * One pass of a cluster member's loop, bounded in time. Once abandoned (its deadline passed, or the
 * member stops now), every store call it is waiting on throws at once and any answer that arrives
 * later is dropped, so a late reply can never change what the member believes.
 */
export class MemberRound {
  private abandoned = false;
  private readonly abandonment: Promise<never>;
  private abandonNow: () => void = () => undefined;
  private readonly cancelDeadline: CancelTimer;

  constructor(
    clock: Clock,
    deadlineMs: number,
    private readonly reportError: (error: Error, step: MemberStep) => void,
  ) {
    this.abandonment = new Promise<never>((_resolve, reject) => {
      this.abandonNow = () => reject(new RoundAbandoned());
    });
    // Nothing may be waiting on it when it rejects.
    this.abandonment.catch(() => undefined);
    this.cancelDeadline = clock.setTimer(deadlineMs, () => {
      this.reportError(new Error(`the round took longer than ${deadlineMs} ms`), 'round');
      this.abandon();
    });
  }

  /** Runs one store call; a failure is reported once and ends the round (as RoundAbandoned). */
  async call<T>(step: MemberStep, work: () => Promise<T>): Promise<T> {
    if (this.abandoned) throw new RoundAbandoned();
    try {
      return await Promise.race([work(), this.abandonment]);
    } catch (error) {
      if (error instanceof RoundAbandoned) throw error;
      this.reportError(error instanceof Error ? error : new Error(String(error)), step);
      throw new RoundAbandoned();
    }
  }

  abandon(): void {
    this.finish();
    this.abandoned = true;
    this.abandonNow();
  }

  finish(): void {
    this.cancelDeadline();
  }
}

import type { CancelTimer, Clock } from '../../src/core/clock.js';

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

/** 2026-03-01T00:00:00Z: a round, recent instant, so stored rows look like real ones. */
export const FAKE_EPOCH = Date.UTC(2026, 2, 1);

/**
 * A Clock that only moves when told to. `advance` runs due timers in order, letting promise chains and
 * callbacks (store writes, worker messages already in) settle between them, so a test drives hours of
 * schedule in milliseconds. `setWall` steps the wall clock alone, as NTP or an operator would: monotonic
 * time and the timers armed on it do not move.
 *
 * Kept in test/support rather than src: production never runs on it, and the simulator that will drive
 * the peer mode in virtual time lives in test/ too.
 */
export class FakeClock implements Clock {
  private wall: number;
  private mono = 0;
  private seq = 0;
  private readonly timers = new Map<number, Timer>();

  constructor(startWall = FAKE_EPOCH) {
    this.wall = startWall;
  }

  now(): number {
    return this.wall;
  }

  monotonic(): number {
    return this.mono;
  }

  setTimer(delayMs: number, fire: () => void): CancelTimer {
    const seq = this.seq++;
    this.timers.set(seq, { at: this.mono + Math.max(0, delayMs), seq, fire });
    return () => void this.timers.delete(seq);
  }

  /** Timers armed and not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** When the next timer fires, as a wall time; null when none is armed. */
  nextTimerAt(): number | null {
    const next = this.earliest();
    return next === undefined ? null : this.wall + (next.at - this.mono);
  }

  /** Moves both clocks on by `ms`, firing every timer that comes due on the way, earliest (then oldest) first. */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`advance needs a non-negative duration, got ${ms}`);
    const target = this.mono + ms;
    await settle();
    for (let next = this.earliest(); next !== undefined && next.at <= target; next = this.earliest()) {
      this.moveTo(next.at);
      this.timers.delete(next.seq);
      next.fire();
      await settle();
    }
    this.moveTo(target);
    await settle();
  }

  /** Advances until the wall clock reads `wallMs` (never backwards: use setWall for that). */
  advanceTo(wallMs: number): Promise<void> {
    return this.advance(Math.max(0, wallMs - this.wall));
  }

  /** Steps the wall clock to `wallMs`, back or forward; monotonic time and armed timers stay put. */
  async setWall(wallMs: number): Promise<void> {
    this.wall = wallMs;
    await settle();
  }

  private moveTo(mono: number): void {
    this.wall += mono - this.mono;
    this.mono = mono;
  }

  private earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const timer of this.timers.values())
      if (best === undefined || timer.at < best.at || (timer.at === best.at && timer.seq < best.seq))
        best = timer;
    return best;
  }
}

/**
 * Lets what is already under way finish: microtasks, then callbacks of I/O that has completed (a
 * worker's message, a finished query), a few turns deep, so a chain of awaits with a write in it settles.
 */
export async function settle(turns = 5): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve));
}

import type { CancelTimer, Clock } from '../../../src/core/clock.js';

interface Scheduled {
  at: number;
  seq: number;
  fire: () => void;
}

/**
 * Real time in a simulation: a queue of what happens when, run in order (earliest, then oldest first), so
 * a run depends on nothing but its seed. Nothing here reads a real clock or waits.
 */
export class VirtualTime {
  private current = 0;
  private seq = 0;
  private readonly heap: Scheduled[] = [];

  /** Real milliseconds since the simulation began. */
  get now(): number {
    return this.current;
  }

  /** Runs `fire` at real time `at` (now, if that has passed); returns a way to call it off. */
  at(at: number, fire: () => void): CancelTimer {
    const entry: Scheduled = { at: Math.max(at, this.current), seq: this.seq++, fire };
    this.push(entry);
    return () => {
      entry.fire = noop;
    };
  }

  /** Runs the events due up to `until`, calling `before(at)` once before each instant's events run. */
  runUntil(until: number, before: (at: number) => void = noop): void {
    while (this.heap.length > 0 && this.heap[0]!.at <= until) {
      const at = this.heap[0]!.at;
      this.current = at;
      before(at);
      while (this.heap.length > 0 && this.heap[0]!.at === at) this.pop().fire();
    }
    this.current = Math.max(this.current, until);
  }

  private push(entry: Scheduled): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!earlier(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): Scheduled {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < heap.length && earlier(heap[left]!, heap[least]!)) least = left;
        if (right < heap.length && earlier(heap[right]!, heap[least]!)) least = right;
        if (least === i) break;
        [heap[i], heap[least]] = [heap[least]!, heap[i]!];
        i = least;
      }
    }
    return top;
  }
}

function earlier(a: Scheduled, b: Scheduled): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

function noop(): void {}

/**
 * One life's clock on a simulated host: its monotonic time starts anywhere and runs at `rate` times real
 * time (within the drift bound the leases assume), and its timers fire after their delay by that clock.
 * A crash ends the life: `stop` calls off every timer it armed, so nothing of the dead process runs on.
 */
export class DriftingClock implements Clock {
  private readonly startedAt: number;
  private readonly cancels = new Set<CancelTimer>();
  private stopped = false;

  constructor(
    private readonly time: VirtualTime,
    readonly rate: number,
    private readonly origin: number,
    private readonly wallOrigin = 1_780_000_000_000,
  ) {
    this.startedAt = time.now;
  }

  monotonic(): number {
    return this.origin + (this.time.now - this.startedAt) * this.rate;
  }

  now(): number {
    return this.wallOrigin + this.monotonic();
  }

  setTimer(delayMs: number, fire: () => void): CancelTimer {
    if (this.stopped) return noop;
    const cancel = this.time.at(this.time.now + Math.max(0, delayMs) / this.rate, () => {
      this.cancels.delete(cancel);
      fire();
    });
    this.cancels.add(cancel);
    return () => {
      this.cancels.delete(cancel);
      cancel();
    };
  }

  stop(): void {
    this.stopped = true;
    for (const cancel of this.cancels) cancel();
    this.cancels.clear();
  }
}

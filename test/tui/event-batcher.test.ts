import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StreamEvent } from '../../src/ipc/protocol.js';
import { EventBatcher } from '../../src/tui/backend/event-batcher.js';

const tick = (n: number): StreamEvent => ({
  type: 'daemon:stopping',
  at: n,
  data: { at: n, reason: String(n) },
});

describe('EventBatcher', () => {
  let clock = 0;
  beforeEach(() => {
    vi.useFakeTimers();
    clock = 0;
  });
  afterEach(() => vi.useRealTimers());

  it('given a quiet stream, when one event arrives, then it is delivered on the next turn without waiting', () => {
    const batches: StreamEvent[][] = [];
    const batcher = new EventBatcher(
      (events) => batches.push(events),
      16,
      () => clock,
    );
    batcher.push(tick(1));
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([[tick(1)]]);
  });

  it('given a flood of events, when they arrive within the interval, then they come as one batch per interval', () => {
    const batches: StreamEvent[][] = [];
    const batcher = new EventBatcher(
      (events) => batches.push(events),
      16,
      () => clock,
    );
    for (let i = 0; i < 1000; i++) {
      batcher.push(tick(i));
      if (i % 100 === 99) {
        clock += 4;
        vi.advanceTimersByTime(4);
      }
    }
    clock += 16;
    vi.advanceTimersByTime(16);
    expect(batches.flat()).toHaveLength(1000);
    expect(batches.length).toBeLessThanOrEqual(4);
  });

  it('given queued events, when flushed, then they are delivered at once and the timer is gone', () => {
    const batches: StreamEvent[][] = [];
    const batcher = new EventBatcher(
      (events) => batches.push(events),
      16,
      () => clock,
    );
    batcher.push(tick(1));
    batcher.flush();
    expect(batches).toEqual([[tick(1)]]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

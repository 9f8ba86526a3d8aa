import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DueWindow } from '../../src/daemon/scheduler/due-window.js';
import { sleep } from '../../src/daemon/clock.js';
import { FakeClock } from '../support/fake-clock.js';

interface Item {
  key: string;
  dueAt: number;
}

// Virtual time: lateness is measured exactly, whatever else the machine is doing.
describe('DueWindow', () => {
  const windows: DueWindow<Item>[] = [];
  let clock = new FakeClock();
  beforeEach(() => {
    clock = new FakeClock();
  });
  afterEach(() => {
    for (const window of windows.splice(0)) window.stop();
  });

  function makeWindow(
    items: Item[],
    options: { windowMs: number; loadLimit?: number; loadDelayMs?: number; batchGapMs?: number },
  ) {
    const fired: { key: string; late: number }[] = [];
    const loads: number[] = [];
    const window = new DueWindow<Item>({
      clock,
      windowMs: options.windowMs,
      loadLimit: options.loadLimit ?? 1_000,
      load: async (horizon, limit) => {
        loads.push(clock.now());
        await sleep(clock, options.loadDelayMs ?? 0);
        return items
          .filter((item) => item.dueAt <= horizon && !fired.some((done) => done.key === item.key))
          .sort((a, b) => a.dueAt - b.dueAt)
          .slice(0, limit);
      },
      keyOf: (item) => item.key,
      dueOf: (item) => item.dueAt,
      onDue: async (due) => {
        for (const item of due) fired.push({ key: item.key, late: clock.now() - item.dueAt });
      },
      onError: (error) => {
        throw error;
      },
      batchGapMs: options.batchGapMs,
    });
    windows.push(window);
    return { window, fired, loads };
  }

  /** start() waits for the first load, which waits on the clock: so the clock moves while it starts. */
  async function startAndAdvance(window: DueWindow<Item>, ms: number): Promise<void> {
    const started = window.start();
    await clock.advance(ms);
    await started;
  }

  it('fires every item once, in order, across several windows', async () => {
    const start = clock.now();
    const items = Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, dueAt: start + 100 + i * 40 }));
    const { window, fired, loads } = makeWindow(items, { windowMs: 300 });
    await startAndAdvance(window, 100 + 30 * 40 + 400);
    expect(fired.map((item) => item.key)).toEqual(items.map((item) => item.key));
    expect(loads.length).toBeGreaterThanOrEqual(4);
  });

  it('with a batch gap, waits that long after a round of several items before the next round, and not after a round of one', async () => {
    const start = clock.now();
    const items = [
      { key: 'alone', dueAt: start + 100 },
      { key: 'next', dueAt: start + 110 },
      { key: 'together-1', dueAt: start + 200 },
      { key: 'together-2', dueAt: start + 200 },
      { key: 'held', dueAt: start + 210 },
      { key: 'after', dueAt: start + 400 },
    ];
    const { window, fired } = makeWindow(items, { windowMs: 1_000, batchGapMs: 50 });
    await startAndAdvance(window, 500);
    // Due 10 ms after a round of two, `held` waits for the gap; `next`, 10 ms after a round of one, does not.
    expect(Object.fromEntries(fired.map((item) => [item.key, item.late]))).toEqual({
      alone: 0,
      next: 0,
      'together-1': 0,
      'together-2': 0,
      held: 40,
      after: 0,
    });
  });

  it('loads the next window ahead, so a slow load does not hold up the items due after it', async () => {
    const start = clock.now();
    // Due every 25 ms for 2.5 s; each load takes 200 ms; 1 s windows are loaded 250 ms before they end.
    const items = Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, dueAt: start + 300 + i * 25 }));
    const { window, fired } = makeWindow(items, { windowMs: 1_000, loadDelayMs: 200 });
    await startAndAdvance(window, 300 + 100 * 25 + 800);
    expect(fired.map((item) => item.key)).toEqual(items.map((item) => item.key));
    // A load awaited in the firing path would leave the ~8 items due during each load 100-200 ms late; in
    // virtual time, everything else is exactly on time.
    expect(fired.filter((item) => item.late > 0)).toEqual([]);
  });

  it('after a load cut short by its limit, loads again only once the last loaded item is due', async () => {
    const start = clock.now();
    const items = Array.from({ length: 12 }, (_, i) => ({ key: `k${i}`, dueAt: start + 100 + i * 30 }));
    const { window, fired, loads } = makeWindow(items, { windowMs: 10_000, loadLimit: 4 });
    await startAndAdvance(window, 100 + 12 * 30 + 300);
    expect(fired.map((item) => item.key)).toEqual(items.map((item) => item.key));
    // Three full loads of four, and one that finds the rest empty: no reloading the same items in a loop.
    expect(loads.length).toBeLessThanOrEqual(6);
  });

  it('tries an item whose handling failed again after a short pause, not at the next load', async () => {
    const start = clock.now();
    const attempts: number[] = [];
    const errors: Error[] = [];
    let failuresLeft = 3;
    const item = { key: 'beat', dueAt: start + 100 };
    const window = new DueWindow<Item>({
      clock,
      windowMs: 60_000,
      loadLimit: 100,
      load: async (horizon) => (item.dueAt <= horizon && attempts.length === 0 ? [item] : []),
      keyOf: (due) => due.key,
      dueOf: (due) => due.dueAt,
      onDue: async (due) => {
        attempts.push(clock.now() - start);
        if (failuresLeft-- > 0) return due;
      },
      onError: (error) => errors.push(error),
    });
    windows.push(window);
    await startAndAdvance(window, 10_000);
    // Three failures (the store down), each followed by a longer pause, then it goes through; before, the
    // item left the window at its first failure and waited for the next load, 45 s later.
    expect(attempts).toEqual([100, 600, 1_600, 3_600]);
    expect(errors).toEqual([]);
  });

  it('pauses after a failed load instead of trying again at once', async () => {
    let loads = 0;
    const errors: Error[] = [];
    const window = new DueWindow<Item>({
      clock,
      windowMs: 400,
      loadLimit: 100,
      load: async () => {
        loads += 1;
        if (loads > 1) throw new Error('connection refused');
        return [];
      },
      keyOf: (due) => due.key,
      dueOf: (due) => due.dueAt,
      onDue: async () => undefined,
      onError: (error) => errors.push(error),
    });
    windows.push(window);
    await startAndAdvance(window, 20_000);
    // 500 ms, 1 s, 2 s, 4 s, then every 8 s: a handful of tries in 20 s, not thousands.
    expect(loads).toBeGreaterThan(3);
    expect(loads).toBeLessThan(10);
    expect(errors.length).toBe(loads - 1);
  });

  it('waits quietly while a load is in flight and nothing is held: no timer is armed for ever', async () => {
    // An empty store, a short window and a slow load: the window is often empty while it loads.
    const { window, loads } = makeWindow([], { windowMs: 200, loadDelayMs: 150 });
    await startAndAdvance(window, 1_000);
    expect(loads.length).toBeGreaterThanOrEqual(3);
    expect(loads.length).toBeLessThan(20);
    // Node clamps a delay past 2^31-1 ms to 1 ms (TimeoutOverflowWarning): a timer "for ever" would spin.
    const nextTimerAt = clock.nextTimerAt();
    if (nextTimerAt !== null) expect(nextTimerAt - clock.now()).toBeLessThan(2 ** 31 - 1);
  });

  it('resolves stop only once the round under way has handed its items over', async () => {
    let handOver: () => void = () => undefined;
    const handedOver = new Promise<void>((resolve) => (handOver = resolve));
    const handled: string[] = [];
    const window = new DueWindow<Item>({
      clock,
      windowMs: 60_000,
      loadLimit: 1_000,
      load: async () => [{ key: 'a', dueAt: clock.now() + 1_000 }],
      keyOf: (item) => item.key,
      dueOf: (item) => item.dueAt,
      onDue: async (due) => {
        await handedOver;
        for (const item of due) handled.push(item.key);
      },
      onError: (error) => {
        throw error;
      },
    });
    windows.push(window);
    await window.start();
    await clock.advance(1_000);

    let stopped = false;
    const stopping = window.stop().then(() => (stopped = true));
    await clock.advance(0);
    expect(stopped).toBe(false);
    handOver();
    await stopping;

    expect(handled).toEqual(['a']);
  });
});

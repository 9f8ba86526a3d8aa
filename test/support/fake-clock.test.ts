import { describe, expect, it } from 'vitest';
import { sleep, sleepUntil, wallTimer } from '../../src/daemon/clock.js';
import { FAKE_EPOCH, FakeClock } from './fake-clock.js';

describe('FakeClock', () => {
  it('given timers armed out of order, advance fires them in due order at their due times', async () => {
    const clock = new FakeClock();
    const fired: [string, number][] = [];
    clock.setTimer(300, () => fired.push(['c', clock.now()]));
    clock.setTimer(100, () => fired.push(['a', clock.now()]));
    clock.setTimer(200, () => fired.push(['b', clock.now()]));

    await clock.advance(250);

    expect(fired).toEqual([
      ['a', FAKE_EPOCH + 100],
      ['b', FAKE_EPOCH + 200],
    ]);
    expect(clock.now()).toBe(FAKE_EPOCH + 250);
    expect(clock.monotonic()).toBe(250);
  });

  it('given two timers due at the same instant, fires the one armed first first', async () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    clock.setTimer(50, () => fired.push('first'));
    clock.setTimer(50, () => fired.push('second'));

    await clock.advance(50);

    expect(fired).toEqual(['first', 'second']);
  });

  it('given a cancelled timer, never fires it', async () => {
    const clock = new FakeClock();
    let fired = false;
    const cancel = clock.setTimer(10, () => (fired = true));
    cancel();

    await clock.advance(1_000);

    expect(fired).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });

  it('given a promise chain after a timer, lets it settle before the next timer fires', async () => {
    const clock = new FakeClock();
    const order: string[] = [];
    clock.setTimer(10, () => {
      void Promise.resolve()
        .then(() => Promise.resolve())
        .then(() => order.push('chain of the first'));
    });
    clock.setTimer(20, () => order.push('second timer'));

    await clock.advance(20);

    expect(order).toEqual(['chain of the first', 'second timer']);
  });

  it('given a timer that arms another within the advance, fires that one too', async () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    clock.setTimer(100, () => {
      fired.push(clock.monotonic());
      clock.setTimer(100, () => fired.push(clock.monotonic()));
    });

    await clock.advance(250);

    expect(fired).toEqual([100, 200]);
  });

  it('given a sleep, resolves it once its delay has passed and not before', async () => {
    const clock = new FakeClock();
    let woke = false;
    void sleep(clock, 1_000).then(() => (woke = true));

    await clock.advance(999);
    expect(woke).toBe(false);
    await clock.advance(1);
    expect(woke).toBe(true);
  });

  it('given an aborted signal, a sleep resolves at once and leaves no timer behind', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const sleeping = sleep(clock, 60_000, controller.signal);
    controller.abort();

    await sleeping;

    expect(clock.pendingTimers).toBe(0);
  });

  it('given the wall clock stepped back, moves neither monotonic time nor timers armed on it', async () => {
    const clock = new FakeClock();
    let firedAtMono: number | null = null;
    clock.setTimer(1_000, () => (firedAtMono = clock.monotonic()));

    await clock.setWall(FAKE_EPOCH - 3_600_000);
    await clock.advance(1_000);

    expect(clock.now()).toBe(FAKE_EPOCH - 3_600_000 + 1_000);
    expect(firedAtMono).toBe(1_000);
  });

  it('given the wall clock stepped back, sleepUntil waits until the wall clock reaches its instant again', async () => {
    const clock = new FakeClock();
    let wokeAt: number | null = null;
    void sleepUntil(clock, FAKE_EPOCH + 10_000).then(() => (wokeAt = clock.now()));

    await clock.setWall(FAKE_EPOCH - 50_000);
    await clock.advance(10_000);
    expect(wokeAt).toBeNull();
    await clock.advance(50_000);

    expect(wokeAt).toBe(FAKE_EPOCH + 10_000);
  });

  it('given the wall clock jumped forward past its instant, a wall timer fires when its armed delay is up', async () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    wallTimer(clock, FAKE_EPOCH + 10_000, () => fired.push(clock.now()));

    await clock.setWall(FAKE_EPOCH + 3_600_000);
    await clock.advance(10_000);

    expect(fired).toEqual([FAKE_EPOCH + 3_610_000]);
  });

  it('given advanceTo a wall time, fires what is due on the way and stops there', async () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    wallTimer(clock, FAKE_EPOCH + 5_000, () => fired.push(clock.now()));

    await clock.advanceTo(FAKE_EPOCH + 60_000);

    expect(fired).toEqual([FAKE_EPOCH + 5_000]);
    expect(clock.now()).toBe(FAKE_EPOCH + 60_000);
  });

  it('given a negative duration, refuses to advance', async () => {
    await expect(new FakeClock().advance(-1)).rejects.toThrow(RangeError);
  });
});

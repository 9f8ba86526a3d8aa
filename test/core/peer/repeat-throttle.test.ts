import { describe, expect, it } from 'vitest';
import { RepeatThrottle } from '../../../src/core/peer/repeat-throttle.js';

describe('RepeatThrottle', () => {
  it('reports the first occurrence of a kind', () => {
    expect(new RepeatThrottle(10_000).admit('datagram:unsealed', 0)).toEqual({ report: true, heldBack: 0 });
  });

  it('holds back the rest of its window, and the next one reported says how many', () => {
    const throttle = new RepeatThrottle(10_000);
    throttle.admit('datagram:unsealed', 0);
    for (let at = 1; at <= 41; at += 1) expect(throttle.admit('datagram:unsealed', at).report).toBe(false);
    expect(throttle.admit('datagram:unsealed', 10_000)).toEqual({ report: true, heldBack: 41 });
    expect(throttle.admit('datagram:unsealed', 10_001)).toEqual({ report: false, heldBack: 1 });
  });

  it('keeps a window per kind', () => {
    const throttle = new RepeatThrottle(10_000);
    throttle.admit('datagram:unsealed', 0);
    expect(throttle.admit('stream:too-large', 5).report).toBe(true);
    expect(throttle.admit('datagram:unsealed', 5).report).toBe(false);
  });

  it('reports again when the clock went back before the window began', () => {
    const throttle = new RepeatThrottle(10_000);
    throttle.admit('datagram:unsealed', 50_000);
    expect(throttle.admit('datagram:unsealed', 1_000)).toEqual({ report: true, heldBack: 0 });
  });
});

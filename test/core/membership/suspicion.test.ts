import { describe, expect, it } from 'vitest';
import { Suspicion, suspicionBounds, suspicionTimeout } from '../../../src/core/membership/suspicion.js';

describe('suspicionBounds', () => {
  it('given a small group, sets min to α probe periods, max to β times that, and waits for α − 2 confirmations', () => {
    expect(suspicionBounds(8, 10, 5, 6)).toEqual({ minTicks: 50, maxTicks: 300, expected: 3 });
  });

  it('given too few others to confirm, waits for none', () => {
    expect(suspicionBounds(4, 10, 5, 6).expected).toBe(0);
    expect(suspicionBounds(5, 10, 5, 6).expected).toBe(3);
  });

  it('given a large group, lengthens min by log10 of its size', () => {
    expect(suspicionBounds(100, 10, 4, 6)).toEqual({ minTicks: 80, maxTicks: 480, expected: 2 });
  });
});

describe('suspicionTimeout', () => {
  const bounds = { minTicks: 50, maxTicks: 300, expected: 3 };

  it('given no confirmation, is the maximum; given all expected, the minimum', () => {
    expect(suspicionTimeout(0, bounds)).toBe(300);
    expect(suspicionTimeout(3, bounds)).toBe(50);
  });

  it('given some confirmations, shrinks logarithmically: the first counts most', () => {
    expect(suspicionTimeout(1, bounds)).toBe(175); // 300 − log 2 / log 4 · 250
    expect(suspicionTimeout(2, bounds)).toBe(101); // 300 − log 3 / log 4 · 250, rounded down
  });

  it('given none expected, is the minimum from the start', () => {
    expect(suspicionTimeout(0, { ...bounds, expected: 0 })).toBe(50);
  });
});

describe('Suspicion', () => {
  it('given confirmations from other members, brings its deadline forward', () => {
    const suspicion = new Suspicion(100, 'b', { minTicks: 50, maxTicks: 300, expected: 3 });
    expect(suspicion.deadline).toBe(400);

    expect(suspicion.confirm('c')).toBe(true);
    expect(suspicion.deadline).toBe(275);
    expect(suspicion.confirm('d')).toBe(true);
    expect(suspicion.confirm('e')).toBe(true);
    expect(suspicion.deadline).toBe(150);
  });

  it('given the first accuser again, a repeat, or more than expected, counts nothing and says it was no news', () => {
    const suspicion = new Suspicion(0, 'b', { minTicks: 50, maxTicks: 300, expected: 1 });
    expect(suspicion.confirm('b')).toBe(false);
    expect(suspicion.confirm('c')).toBe(true);
    expect(suspicion.confirm('c')).toBe(false);
    expect(suspicion.confirm('d')).toBe(false);
    expect(suspicion.deadline).toBe(50);
  });
});

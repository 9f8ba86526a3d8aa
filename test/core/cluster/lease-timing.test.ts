import { describe, expect, it } from 'vitest';
import { leaseSafetyMarginMs, mayActUntil } from '../../../src/core/cluster/lease-timing.js';

describe('mayActUntil', () => {
  it('given a 10 s lease renewed at t=5000, may act until 13 s: the TTL less a 2 s (TTL/5) margin', () => {
    expect(mayActUntil(5_000, 10_000)).toBe(13_000);
  });

  it('given a 3 s lease, keeps a margin of at least one second', () => {
    expect(leaseSafetyMarginMs(3_000)).toBe(1_000);
    expect(mayActUntil(0, 3_000)).toBe(2_000);
  });

  it('given a lease too short for a one-second margin, keeps half of it to act in', () => {
    expect(leaseSafetyMarginMs(600)).toBe(300);
    expect(mayActUntil(100, 600)).toBe(400);
  });

  it('given an explicit margin, uses it', () => {
    expect(mayActUntil(1_000, 10_000, 500)).toBe(10_500);
  });

  it('always ends before the lease could end elsewhere (sent + TTL)', () => {
    for (const ttl of [200, 600, 1_000, 5_000, 10_000, 60_000]) {
      expect(mayActUntil(42, ttl)).toBeLessThan(42 + ttl);
      expect(mayActUntil(42, ttl)).toBeGreaterThan(42);
    }
  });
});

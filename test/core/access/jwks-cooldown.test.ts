import { describe, expect, it } from 'vitest';
import { jwksCooldownLeftMs } from '../../../src/core/access/jwks-cooldown.js';

describe('jwksCooldownLeftMs', () => {
  it('given no failed fetch, lets one be made at once', () => {
    expect(jwksCooldownLeftMs(null, 5_000, 10_000)).toBe(0);
  });

  it('given a fetch that failed, holds the next one back for the rest of the cooldown', () => {
    expect(jwksCooldownLeftMs(1_000, 1_000, 10_000)).toBe(10_000);
    expect(jwksCooldownLeftMs(1_000, 4_500, 10_000)).toBe(6_500);
  });

  it('given the cooldown over, lets one be made again', () => {
    expect(jwksCooldownLeftMs(1_000, 11_000, 10_000)).toBe(0);
    expect(jwksCooldownLeftMs(1_000, 60_000, 10_000)).toBe(0);
  });

  it('given a clock that reads before the failure, lets one be made rather than wait longer', () => {
    expect(jwksCooldownLeftMs(50_000, 20_000, 10_000)).toBe(0);
  });
});

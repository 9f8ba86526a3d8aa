import { describe, expect, it } from 'vitest';
import { failedProbePenalty, LocalHealth } from '../../../src/core/membership/local-health.js';

describe('LocalHealth', () => {
  it('given a healthy member, leaves timeouts as they are', () => {
    const health = new LocalHealth(8);
    expect(health.score).toBe(0);
    expect(health.scale(10)).toBe(10);
  });

  it('given signs of slowness, stretches timeouts by score + 1, up to the maximum times', () => {
    const health = new LocalHealth(8);
    health.apply(3);
    expect(health.scale(10)).toBe(40);
    health.apply(100);
    expect(health.score).toBe(7);
    expect(health.scale(10)).toBe(80);
  });

  it('given successful probes, comes back down to zero and no lower', () => {
    const health = new LocalHealth(8);
    health.apply(2);
    health.apply(-1);
    expect(health.score).toBe(1);
    health.apply(-5);
    expect(health.score).toBe(0);
  });
});

describe('failedProbePenalty', () => {
  it('counts each helper that sent no nack, and the failure itself when there was no helper to ask', () => {
    expect(failedProbePenalty(3, 0)).toBe(3);
    expect(failedProbePenalty(3, 2)).toBe(1);
    expect(failedProbePenalty(3, 3)).toBe(0);
    expect(failedProbePenalty(0, 0)).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { jobStatus } from '../../src/core/job-status.js';

const at = { kind: 'at' as const, at: Date.UTC(2026, 11, 1) };
const every = { kind: 'every' as const, intervalMs: 60_000, anchorMs: 0 };

describe('jobStatus', () => {
  it('given an active one-shot job with no next instant, says done', () => {
    expect(jobStatus({ state: 'active', schedule: at, nextRunAt: null })).toBe('done');
  });

  it('given an active one-shot job still due, says active', () => {
    expect(jobStatus({ state: 'active', schedule: at, nextRunAt: at.at })).toBe('active');
  });

  it('given a paused or cancelled one-shot job, keeps its stored state', () => {
    expect(jobStatus({ state: 'paused', schedule: at, nextRunAt: null })).toBe('paused');
    expect(jobStatus({ state: 'cancelled', schedule: at, nextRunAt: null })).toBe('cancelled');
  });

  it('given a repeating job with no next instant, says active (only one-shot jobs are ever done)', () => {
    expect(jobStatus({ state: 'active', schedule: every, nextRunAt: null })).toBe('active');
  });
});

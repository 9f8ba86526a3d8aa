import { describe, expect, it } from 'vitest';
import { SchedError } from '../../src/core/errors.js';
import { DEFAULT_TIME_POLICY, type JobInput } from '../../src/core/job.js';
import { applyJobPatch, normalizeJobInput } from '../../src/core/normalize.js';

const ctx = { now: Date.parse('2026-06-01T12:00:00Z'), defaultTimezone: 'UTC' };
const valid: JobInput = { name: 'nightly', cron: '0 3 * * *', argv: ['true'] };

function errorOf(action: () => unknown): SchedError {
  try {
    action();
  } catch (error) {
    if (error instanceof SchedError) return error;
    throw error;
  }
  throw new Error('expected a SchedError');
}

describe('time policy and dependencies in normalization', () => {
  it('defaults to forbid, latest within 1h, shift/first, no spread or jitter, no dependencies', () => {
    const definition = normalizeJobInput(valid, ctx);
    expect(definition.policy).toEqual(DEFAULT_TIME_POLICY);
    expect(definition.after).toEqual([]);
    expect(definition.afterAll).toEqual([]);
  });

  it('reads every policy flag', () => {
    const definition = normalizeJobInput(
      {
        ...valid,
        concurrency: 'Queue',
        misfire: 'count:3',
        catchupWindow: '30m',
        skipIfNextWithin: '5m',
        dstGap: 'skip',
        dstRepeat: 'both',
        spread: '10m',
        fireJitter: '30s',
      },
      ctx,
    );
    expect(definition.policy).toEqual({
      concurrency: 'queue',
      misfire: {
        policy: { kind: 'count', count: 3 },
        catchupWindowMs: 1_800_000,
        skipIfNextWithinMs: 300_000,
      },
      dst: { gap: 'skip', repeat: 'both' },
      spreadMs: 600_000,
      jitterMs: 30_000,
    });
  });

  it('accepts a job with only dependencies, as schedule kind none', () => {
    const definition = normalizeJobInput(
      { name: 'report', argv: ['true'], after: ['extract:success', 'load'], afterAll: [] },
      ctx,
    );
    expect(definition.schedule).toEqual({ kind: 'none' });
    expect(definition.after).toEqual([
      { job: 'extract', on: 'success' },
      { job: 'load', on: 'success' },
    ]);
  });

  it('refuses a job with neither a schedule nor dependencies, and one that runs after itself', () => {
    expect(errorOf(() => normalizeJobInput({ name: 'x', argv: ['true'] }, ctx)).message).toMatch(
      /no schedule/,
    );
    expect(errorOf(() => normalizeJobInput({ ...valid, after: ['nightly'] }, ctx)).message).toMatch(
      /after itself/,
    );
  });

  it('gives clear errors for bad policy values', () => {
    expect(errorOf(() => normalizeJobInput({ ...valid, concurrency: 'sometimes' }, ctx)).hint).toMatch(
      /forbid/,
    );
    expect(errorOf(() => normalizeJobInput({ ...valid, misfire: 'once' }, ctx)).hint).toMatch(
      /--misfire latest/,
    );
    expect(errorOf(() => normalizeJobInput({ ...valid, misfire: 'count:0' }, ctx)).hint).toMatch(
      /--misfire skip/,
    );
    expect(errorOf(() => normalizeJobInput({ ...valid, spread: '0s' }, ctx)).message).toMatch(
      /longer than zero/,
    );
    expect(errorOf(() => normalizeJobInput({ ...valid, dstGap: 'later' }, ctx)).message).toMatch(/--dst-gap/);
    expect(errorOf(() => normalizeJobInput({ ...valid, afterAll: ['a'] }, ctx)).message).toMatch(
      /at least two/,
    );
  });

  it('patches policy fields one by one and clears the optional ones', () => {
    const job = normalizeJobInput({ ...valid, spread: '5m', fireJitter: '10s', after: ['a'] }, ctx);
    const patched = applyJobPatch(job, { concurrency: 'allow', clear: ['spread', 'after'] }, ctx);
    expect(patched.policy.concurrency).toBe('allow');
    expect(patched.policy.spreadMs).toBeNull();
    expect(patched.policy.jitterMs).toBe(10_000);
    expect(patched.after).toEqual([]);
    expect(patched.policy.misfire).toEqual(job.policy.misfire);
  });
});

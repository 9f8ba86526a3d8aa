import { describe, expect, it } from 'vitest';
import type { JobDefinition } from '../../src/core/job.js';
import { applyJobPatch, normalizeJobInput } from '../../src/core/normalize.js';

const ctx = { now: Date.parse('2026-06-02T08:00:00Z'), defaultTimezone: 'UTC' };

const commandJob: JobDefinition = normalizeJobInput(
  {
    name: 'nightly',
    cron: '0 3 * * *',
    argv: ['./backup.sh'],
    cwd: '/srv',
    env: { A: '1' },
    retries: 3,
    backoff: '30s',
    backoffFactor: 3,
    backoffMax: '10m',
    jitter: false,
  },
  ctx,
);
const httpJob: JobDefinition = normalizeJobInput(
  {
    name: 'hook',
    every: '5m',
    http: 'https://example.com/hook',
    method: 'PUT',
    payload: '{"a": 1}',
    headers: ['Authorization: Bearer t'],
    expect: '200,202',
    breakerFailures: 8,
    breakerCooldown: '1m',
  },
  ctx,
);

describe('applyJobPatch: the retry policy', () => {
  it('given --retries only, keeps the current backoff', () => {
    expect(applyJobPatch(commandJob, { retries: 5 }, ctx).retry).toEqual({
      ...commandJob.retry,
      maxRetries: 5,
    });
  });

  it('given jitter only, turns it on and keeps the rest', () => {
    expect(applyJobPatch(commandJob, { jitter: true }, ctx).retry).toEqual({
      ...commandJob.retry,
      jitter: true,
    });
  });

  it('given no retry field, keeps the policy as stored', () => {
    expect(applyJobPatch(commandJob, { timeout: '1m' }, ctx).retry).toEqual(commandJob.retry);
  });

  it('given a first backoff longer than the stored longest, refuses it saying the longest is stored', () => {
    expect(() => applyJobPatch(commandJob, { backoff: '1h' }, ctx)).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message: 'The first retry delay (1h) is longer than the longest delay (10m, as stored).',
      }),
    );
  });

  it('given a longer first backoff together with a longer longest, accepts both', () => {
    expect(applyJobPatch(commandJob, { backoff: '1h', backoffMax: '2h' }, ctx).retry).toMatchObject({
      initialBackoffMs: 3_600_000,
      maxBackoffMs: 7_200_000,
    });
  });

  it('given --retries out of range, refuses it', () => {
    expect(() => applyJobPatch(commandJob, { retries: 101 }, ctx)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });
});

describe('applyJobPatch: switching and changing targets', () => {
  it('given a URL for a command job, switches to an HTTP target with the defaults, dropping cwd and env', () => {
    expect(applyJobPatch(commandJob, { http: 'https://example.com/x' }, ctx).target).toEqual({
      kind: 'http',
      method: 'GET',
      url: 'https://example.com/x',
      headers: {},
      expect: { kind: 'class', hundreds: 2 },
      breaker: { failureThreshold: 5, cooldownMs: 30_000 },
    });
  });

  it('given a URL and a cwd for a command job, refuses the cwd', () => {
    expect(() => applyJobPatch(commandJob, { http: 'https://example.com/x', cwd: '/tmp' }, ctx)).toThrow(
      expect.objectContaining({ message: '--cwd applies to command jobs only.' }),
    );
  });

  it('given a URL for a job with a payload, defaults the method to POST', () => {
    const withPayload = { ...commandJob, payload: { full: true } };
    expect(applyJobPatch(withPayload, { http: 'https://example.com/x' }, ctx).target).toMatchObject({
      method: 'POST',
    });
  });

  it('given a new URL for an HTTP job, keeps its method, headers, expected status and breaker', () => {
    expect(applyJobPatch(httpJob, { http: 'https://example.org/v2' }, ctx).target).toEqual({
      ...httpJob.target,
      url: 'https://example.org/v2',
    });
  });

  it('given one HTTP field, changes it alone', () => {
    expect(applyJobPatch(httpJob, { expect: '2xx', breakerFailures: 2 }, ctx).target).toEqual({
      ...httpJob.target,
      expect: { kind: 'class', hundreds: 2 },
      breaker: { failureThreshold: 2, cooldownMs: 60_000 },
    });
  });

  it('given headers, replaces all headers rather than merging', () => {
    expect(applyJobPatch(httpJob, { headers: ['X-Team: ops'] }, ctx).target).toMatchObject({
      headers: { 'X-Team': 'ops' },
    });
  });

  it('given an argv for an HTTP job, switches back to a command with no cwd and an empty env', () => {
    expect(applyJobPatch(httpJob, { argv: ['./run.sh'] }, ctx).target).toEqual({
      kind: 'command',
      argv: ['./run.sh'],
      shell: null,
      cwd: null,
      env: {},
    });
  });

  it('given a shell script and a cwd for an HTTP job, switches to a command in that directory', () => {
    expect(applyJobPatch(httpJob, { shell: 'make', cwd: '/build' }, ctx).target).toMatchObject({
      kind: 'command',
      shell: 'make',
      cwd: '/build',
    });
  });

  it('given a URL and a command together, refuses both', () => {
    expect(() => applyJobPatch(commandJob, { http: 'https://example.com/', argv: ['x'] }, ctx)).toThrow(
      expect.objectContaining({ message: 'A job either calls a URL or runs a command, not both.' }),
    );
  });

  it('given an env for an HTTP job, refuses it', () => {
    expect(() => applyJobPatch(httpJob, { env: { A: '1' } }, ctx)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', message: '--env applies to command jobs only.' }),
    );
  });

  it('given clear cwd for an HTTP job, accepts it as already true', () => {
    expect(applyJobPatch(httpJob, { clear: ['cwd'] }, ctx)).toEqual(httpJob);
  });

  it('given a method for a command job, refuses it', () => {
    expect(() => applyJobPatch(commandJob, { method: 'POST' }, ctx)).toThrow(
      expect.objectContaining({ message: '--method applies to HTTP jobs only.' }),
    );
  });

  it('given a method for an HTTP job together with an argv, refuses the method', () => {
    expect(() => applyJobPatch(httpJob, { argv: ['true'], method: 'POST' }, ctx)).toThrow(
      expect.objectContaining({ message: '--method applies to HTTP jobs only.' }),
    );
  });

  it('given GET for an HTTP job with a payload, refuses it', () => {
    expect(() => applyJobPatch(httpJob, { method: 'GET' }, ctx)).toThrow(
      expect.objectContaining({ message: 'A GET request cannot carry the payload as its body.' }),
    );
  });

  it('given GET and clearing the payload together, accepts both', () => {
    expect(applyJobPatch(httpJob, { method: 'get', clear: ['payload'] }, ctx)).toMatchObject({
      payload: null,
      target: { method: 'GET' },
    });
  });

  it('given a payload for an HTTP GET job, refuses it rather than drop the body', () => {
    const getJob = applyJobPatch(httpJob, { method: 'GET', clear: ['payload'] }, ctx);
    expect(() => applyJobPatch(getJob, { payload: '{}' }, ctx)).toThrow(
      expect.objectContaining({ message: 'A GET request cannot carry the payload as its body.' }),
    );
  });

  it('given a bad URL, refuses it naming the URL', () => {
    expect(() => applyJobPatch(httpJob, { http: 'example.com/hook' }, ctx)).toThrow(
      expect.objectContaining({ message: 'Invalid URL "example.com/hook".' }),
    );
  });

  it('does not modify the current definition', () => {
    const before = structuredClone(httpJob);
    applyJobPatch(httpJob, { headers: ['A: b'], retries: 2, expect: '5xx' }, ctx);
    expect(httpJob).toEqual(before);
  });
});

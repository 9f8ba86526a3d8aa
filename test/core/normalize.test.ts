import { DEFAULT_ALERTS } from '../../src/core/notify/alerts.js';
import { describe, expect, it } from 'vitest';
import { SchedError } from '../../src/core/errors.js';
import {
  DEFAULT_PLACEMENT,
  DEFAULT_RETRY_POLICY,
  DEFAULT_TIME_POLICY,
  MAX_PAYLOAD_BYTES,
  type JobInput,
} from '../../src/core/job.js';
import { normalizeJobInput } from '../../src/core/normalize.js';

const now = Date.parse('2026-06-01T12:00:00Z');
const ctx = { now, defaultTimezone: 'Europe/Berlin' };
const valid: JobInput = { name: 'nightly', cron: '0 3 * * *', argv: ['./backup.sh', '--full'] };

function normalizeError(changes: Partial<JobInput>): SchedError {
  try {
    normalizeJobInput({ ...valid, ...changes }, ctx);
  } catch (error) {
    if (error instanceof SchedError) return error;
    throw error;
  }
  throw new Error('expected normalizeJobInput to throw');
}

describe('normalizeJobInput: the happy path', () => {
  it('given a full input, returns the normalized definition', () => {
    const definition = normalizeJobInput(
      {
        name: 'nightly',
        description: 'Back up the database',
        cron: '  0  3 * * *  ',
        timezone: 'America/New_York',
        argv: ['./backup.sh', '--full'],
        cwd: '/srv',
        env: { BACKUP_TARGET: 's3://bucket', _X1: 'y' },
        payload: '{"tables": ["users"]}',
        timeout: '10m',
        labels: { team: 'infra', 'app.kubernetes.io/name': 'db' },
      },
      ctx,
    );
    expect(definition).toEqual({
      name: 'nightly',
      description: 'Back up the database',
      schedule: { kind: 'cron', expression: '0 3 * * *' },
      timezone: 'America/New_York',
      target: {
        kind: 'command',
        argv: ['./backup.sh', '--full'],
        shell: null,
        cwd: '/srv',
        env: { BACKUP_TARGET: 's3://bucket', _X1: 'y' },
      },
      payload: { tables: ['users'] },
      timeoutMs: 600_000,
      labels: { team: 'infra', 'app.kubernetes.io/name': 'db' },
      retry: DEFAULT_RETRY_POLICY,
      policy: DEFAULT_TIME_POLICY,
      after: [],
      afterAll: [],
      placement: DEFAULT_PLACEMENT,
      alerts: DEFAULT_ALERTS,
    });
  });

  it('given a minimal input, fills defaults: the context zone, no payload, no timeout, empty env and labels, no retries', () => {
    expect(normalizeJobInput({ name: 'ping', every: '30s', shell: 'curl -fsS localhost' }, ctx)).toEqual({
      name: 'ping',
      description: null,
      schedule: { kind: 'every', intervalMs: 30_000, anchorMs: now },
      timezone: 'Europe/Berlin',
      target: { kind: 'command', argv: null, shell: 'curl -fsS localhost', cwd: null, env: {} },
      payload: null,
      timeoutMs: null,
      labels: {},
      retry: { maxRetries: 0, initialBackoffMs: 10_000, factor: 2, maxBackoffMs: 3_600_000, jitter: true },
      policy: DEFAULT_TIME_POLICY,
      after: [],
      afterAll: [],
      placement: DEFAULT_PLACEMENT,
      alerts: DEFAULT_ALERTS,
    });
  });

  it('given a local --at, reads it in the job zone', () => {
    expect(normalizeJobInput({ ...valid, cron: undefined, at: '2026-12-01T09:00' }, ctx).schedule).toEqual({
      kind: 'at',
      at: Date.parse('2026-12-01T08:00:00Z'),
    });
  });

  it('given a macro, keeps it as written', () => {
    expect(normalizeJobInput({ ...valid, cron: '@daily' }, ctx).schedule).toEqual({
      kind: 'cron',
      expression: '@daily',
    });
  });
});

describe('normalizeJobInput: refusals', () => {
  it.each(['', '-leading-dash', 'has space', 'x'.repeat(129), 'slash/name'])(
    'given the name "%s", throws VALIDATION_FAILED',
    (name) => {
      const error = normalizeError({ name });
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.message).toBe(`Invalid job name "${name}".`);
      expect(error.hint).toContain('letters, digits');
    },
  );

  it('given a name shaped like a job id (a UUID), throws VALIDATION_FAILED saying why', () => {
    const error = normalizeError({ name: '0193a3c2-7f1e-7c3a-9b2d-4e5f6a7b8c9d' });
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toBe(
      'Invalid job name "0193a3c2-7f1e-7c3a-9b2d-4e5f6a7b8c9d": it has the shape of a job id.',
    );
    expect(error.hint).toContain('may not be a UUID');
  });

  it('given no schedule, throws VALIDATION_FAILED asking for one or for --after', () => {
    const error = normalizeError({ cron: undefined });
    expect([error.code, error.message, error.hint]).toEqual([
      'VALIDATION_FAILED',
      'Job "nightly" has no schedule.',
      'Give one of --cron, --at or --every, or --after JOB to run it when another job ends.',
    ]);
  });

  it('given two schedules, throws VALIDATION_FAILED naming both', () => {
    const error = normalizeError({ every: '5m' });
    expect([error.code, error.message]).toEqual([
      'VALIDATION_FAILED',
      'A job has one schedule, but cron and every were given.',
    ]);
  });

  it('given an unknown zone, throws UNKNOWN_TIMEZONE', () => {
    expect(normalizeError({ timezone: 'Europe/Berlim' }).code).toBe('UNKNOWN_TIMEZONE');
  });

  it('given an unknown default zone and none on the job, throws UNKNOWN_TIMEZONE', () => {
    expect(() => normalizeJobInput(valid, { now, defaultTimezone: 'Nowhere/Land' })).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_TIMEZONE' }),
    );
  });

  it('given a bad cron expression, throws INVALID_SCHEDULE naming the field', () => {
    const error = normalizeError({ cron: '0 25 * * *' });
    expect([error.code, error.message]).toEqual([
      'INVALID_SCHEDULE',
      'Invalid cron expression "0 25 * * *": the hour field (25) must be between 0 and 23.',
    ]);
  });

  it('given an unreadable --at, throws INVALID_SCHEDULE', () => {
    expect(normalizeError({ cron: undefined, at: 'next tuesday' }).code).toBe('INVALID_SCHEDULE');
  });

  it('given an --at in the past, throws AT_IN_PAST giving the instant and now', () => {
    const error = normalizeError({ cron: undefined, at: '2026-06-01T13:59', timezone: 'Europe/Berlin' });
    expect(error.code).toBe('AT_IN_PAST');
    expect(error.message).toBe(
      'The time "2026-06-01T13:59" (2026-06-01T11:59:00.000Z) is not in the future; it is now 2026-06-01T12:00:00.000Z.',
    );
  });

  it('given an --at equal to now, throws AT_IN_PAST because it must be strictly later', () => {
    expect(normalizeError({ cron: undefined, at: '2026-06-01T12:00Z' }).code).toBe('AT_IN_PAST');
  });

  it('given a too-short --every, throws INVALID_SCHEDULE', () => {
    expect(normalizeError({ cron: undefined, every: '100ms' }).code).toBe('INVALID_SCHEDULE');
  });

  it.each([
    ['no argv and no shell', { argv: undefined }],
    ['an empty argv', { argv: [] }],
    ['an argv whose program is empty', { argv: ['', 'x'] }],
    ['a blank shell script', { argv: undefined, shell: '   ' }],
  ])('given %s, throws EMPTY_COMMAND', (_, changes) => {
    const error = normalizeError(changes);
    expect(error.code).toBe('EMPTY_COMMAND');
    expect(error.hint).toContain('--shell');
  });

  it('given both argv and a shell script, throws VALIDATION_FAILED', () => {
    expect(normalizeError({ shell: 'echo hi' }).message).toBe(
      'A job runs either an argv or a shell script, not both.',
    );
  });

  it('given a payload that is not JSON, throws VALIDATION_FAILED saying where', () => {
    const error = normalizeError({ payload: '{"a": 1,\n "b": }' });
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toBe('The payload is not valid JSON: unexpected "}" at line 2, column 7.');
  });

  it('given a truncated payload, says the JSON ends too early', () => {
    expect(normalizeError({ payload: '{"a": ' }).message).toBe(
      'The payload is not valid JSON: it ends too early.',
    );
  });

  it('given a payload over 1 MiB, throws PAYLOAD_TOO_LARGE with its size', () => {
    const payload = JSON.stringify('é'.repeat(MAX_PAYLOAD_BYTES / 2));
    const error = normalizeError({ payload });
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.message).toBe(
      `The payload is ${MAX_PAYLOAD_BYTES + 2} bytes; the limit is ${MAX_PAYLOAD_BYTES} bytes (1 MiB).`,
    );
  });

  it('given a payload of exactly 1 MiB, accepts it', () => {
    const payload = JSON.stringify('x'.repeat(MAX_PAYLOAD_BYTES - 2));
    expect(normalizeJobInput({ ...valid, payload }, ctx).payload).toHaveLength(MAX_PAYLOAD_BYTES - 2);
  });

  it.each(['0s', 'soon', '0.1ms'])('given the timeout "%s", throws VALIDATION_FAILED', (timeout) => {
    expect(normalizeError({ timeout }).code).toBe('VALIDATION_FAILED');
  });

  it('given a timeout longer than a timer can wait, throws VALIDATION_FAILED', () => {
    expect(normalizeError({ timeout: '30d' }).message).toBe('Timeout "30d" is too long; the longest is 24d.');
  });

  it.each(['1ABC', 'WITH-DASH', 'HAS SPACE', ''])(
    'given the env name "%s", throws VALIDATION_FAILED',
    (name) => {
      expect(normalizeError({ env: { [name]: 'x' } }).message).toBe(
        `Invalid environment variable name "${name}".`,
      );
    },
  );

  it.each(['', 'has space', 'emoji🙂', 'a=b'])(
    'given the label key "%s", throws VALIDATION_FAILED',
    (key) => {
      expect(normalizeError({ labels: { [key]: 'x' } }).message).toBe(`Invalid label key "${key}".`);
    },
  );

  it('given a label with an empty value, throws VALIDATION_FAILED', () => {
    expect(normalizeError({ labels: { team: '' } }).message).toBe('Label "team" has an empty value.');
  });

  it('given a description over 1000 characters, throws VALIDATION_FAILED', () => {
    expect(normalizeError({ description: 'x'.repeat(1001) }).message).toBe(
      'The description is 1001 characters long; the limit is 1000.',
    );
  });

  it('given a description of exactly 1000 characters, accepts it', () => {
    expect(normalizeJobInput({ ...valid, description: 'x'.repeat(1000) }, ctx).description).toHaveLength(
      1000,
    );
  });

  it('given an empty working directory, throws VALIDATION_FAILED', () => {
    expect(normalizeError({ cwd: '' }).message).toBe('The working directory is empty.');
  });

  it('gives every refusal a hint', () => {
    const refusals: Partial<JobInput>[] = [
      { name: '' },
      { cron: undefined },
      { timezone: 'X' },
      { cron: '61 * * * *' },
      { argv: [] },
      { payload: '{' },
      { timeout: '0s' },
      { env: { '1': 'x' } },
      { labels: { ' ': 'x' } },
    ];
    for (const changes of refusals)
      expect(normalizeError(changes).hint, JSON.stringify(changes)).toBeTruthy();
  });
});

import { describe, expect, it } from 'vitest';
import type { JobDefinition } from '../../src/core/job.js';
import { applyJobPatch, normalizeJobInput } from '../../src/core/normalize.js';

const created = Date.parse('2026-06-01T12:00:00Z');
const later = Date.parse('2026-06-02T08:00:00Z');
const ctx = { now: later, defaultTimezone: 'UTC' };

const current: JobDefinition = normalizeJobInput(
  {
    name: 'nightly',
    description: 'Back up',
    cron: '0 3 * * *',
    timezone: 'Europe/Berlin',
    argv: ['./backup.sh'],
    cwd: '/srv',
    env: { A: '1', B: '2' },
    payload: '{"full": true}',
    timeout: '10m',
    labels: { team: 'infra' },
  },
  { now: created, defaultTimezone: 'UTC' },
);
const every: JobDefinition = {
  ...current,
  schedule: { kind: 'every', intervalMs: 60_000, anchorMs: created },
};

describe('applyJobPatch', () => {
  it('given an empty patch, returns the job unchanged', () => {
    expect(applyJobPatch(current, {}, ctx)).toEqual(current);
  });

  it('given a new cron expression, replaces the schedule and keeps everything else', () => {
    expect(applyJobPatch(current, { cron: '30 4 * * 1-5' }, ctx)).toEqual({
      ...current,
      schedule: { kind: 'cron', expression: '30 4 * * 1-5' },
    });
  });

  it('given an at, replaces a cron schedule with a one-shot read in the job zone', () => {
    expect(applyJobPatch(current, { at: '2026-12-01 09:00' }, ctx).schedule).toEqual({
      kind: 'at',
      at: Date.parse('2026-12-01T08:00:00Z'),
    });
  });

  it('given an at and a new zone together, reads the at in the new zone', () => {
    expect(
      applyJobPatch(current, { at: '2026-12-01 09:00', timezone: 'America/New_York' }, ctx).schedule,
    ).toEqual({ kind: 'at', at: Date.parse('2026-12-01T14:00:00Z') });
  });

  it('given an at before now, throws AT_IN_PAST', () => {
    expect(() => applyJobPatch(current, { at: '2026-06-01T00:00Z' }, ctx)).toThrow(
      expect.objectContaining({ code: 'AT_IN_PAST' }),
    );
  });

  it('given two schedules, throws VALIDATION_FAILED', () => {
    expect(() => applyJobPatch(current, { cron: '0 * * * *', every: '5m' }, ctx)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });

  it('given a bad cron expression, throws INVALID_SCHEDULE naming the field', () => {
    expect(() => applyJobPatch(current, { cron: '0 0 * * 9' }, ctx)).toThrow(
      expect.objectContaining({
        code: 'INVALID_SCHEDULE',
        message: expect.stringContaining('day-of-week field (9)'),
      }),
    );
  });

  it('given a changed interval, re-anchors it to now', () => {
    expect(applyJobPatch(every, { every: '5m' }, ctx).schedule).toEqual({
      kind: 'every',
      intervalMs: 300_000,
      anchorMs: later,
    });
  });

  it('given the same interval again, keeps the original anchor so the rhythm does not shift', () => {
    expect(applyJobPatch(every, { every: '1m' }, ctx).schedule).toEqual(every.schedule);
  });

  it('given an interval for a cron job, anchors the new interval to now', () => {
    expect(applyJobPatch(current, { every: '1m' }, ctx).schedule).toEqual({
      kind: 'every',
      intervalMs: 60_000,
      anchorMs: later,
    });
  });

  it('given a new zone only, keeps the schedule and changes the zone', () => {
    expect(applyJobPatch(current, { timezone: 'Asia/Kathmandu' }, ctx)).toEqual({
      ...current,
      timezone: 'Asia/Kathmandu',
    });
  });

  it('given an unknown zone, throws UNKNOWN_TIMEZONE', () => {
    expect(() => applyJobPatch(current, { timezone: 'Asia/Kathmandoo' }, ctx)).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_TIMEZONE' }),
    );
  });

  it('given a shell script, replaces the argv and clears it', () => {
    expect(applyJobPatch(current, { shell: 'pg_dump db > /tmp/db.sql' }, ctx).target).toEqual({
      ...current.target,
      argv: null,
      shell: 'pg_dump db > /tmp/db.sql',
    });
  });

  it('given an argv for a shell job, replaces the script and clears it', () => {
    const shellJob = applyJobPatch(current, { shell: 'echo hi' }, ctx);
    expect(applyJobPatch(shellJob, { argv: ['echo', 'hi'] }, ctx).target).toMatchObject({
      argv: ['echo', 'hi'],
      shell: null,
    });
  });

  it('given an empty argv, throws EMPTY_COMMAND', () => {
    expect(() => applyJobPatch(current, { argv: [] }, ctx)).toThrow(
      expect.objectContaining({ code: 'EMPTY_COMMAND' }),
    );
  });

  it('given a blank shell script, throws EMPTY_COMMAND', () => {
    expect(() => applyJobPatch(current, { shell: ' ' }, ctx)).toThrow(
      expect.objectContaining({ code: 'EMPTY_COMMAND' }),
    );
  });

  it('given env, replaces the whole env rather than merging', () => {
    expect(applyJobPatch(current, { env: { C: '3' } }, ctx).target).toMatchObject({ env: { C: '3' } });
  });

  it('given labels, replaces all labels rather than merging', () => {
    expect(applyJobPatch(current, { labels: { tier: 'gold' } }, ctx).labels).toEqual({ tier: 'gold' });
  });

  it('given an invalid env name, throws VALIDATION_FAILED', () => {
    expect(() => applyJobPatch(current, { env: { '9LIVES': 'x' } }, ctx)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });

  it('given clear for timeout, payload, description and cwd, resets them to null', () => {
    expect(applyJobPatch(current, { clear: ['timeout', 'payload', 'description', 'cwd'] }, ctx)).toEqual({
      ...current,
      timeoutMs: null,
      payload: null,
      description: null,
      target: { ...current.target, cwd: null },
    });
  });

  it('given a field both set and cleared, throws VALIDATION_FAILED', () => {
    expect(() => applyJobPatch(current, { timeout: '5m', clear: ['timeout'] }, ctx)).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message: 'The timeout cannot be both set and cleared.',
      }),
    );
  });

  it('given a new payload, parses it', () => {
    expect(applyJobPatch(current, { payload: '[1, 2]' }, ctx).payload).toEqual([1, 2]);
  });

  it('given a bad payload, throws VALIDATION_FAILED', () => {
    expect(() => applyJobPatch(current, { payload: '{' }, ctx)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });

  it('given a new timeout and description, replaces both', () => {
    expect(applyJobPatch(current, { timeout: '1h', description: 'Hourly' }, ctx)).toMatchObject({
      timeoutMs: 3_600_000,
      description: 'Hourly',
    });
  });

  it('given a new name, checks it like a new job', () => {
    expect(() => applyJobPatch(current, { name: 'no spaces allowed' }, ctx)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
    expect(applyJobPatch(current, { name: 'nightly-v2' }, ctx).name).toBe('nightly-v2');
  });

  it('does not modify the current definition', () => {
    const before = structuredClone(current);
    applyJobPatch(current, { env: { C: '3' }, clear: ['cwd'], cron: '@hourly' }, ctx);
    expect(current).toEqual(before);
  });
});

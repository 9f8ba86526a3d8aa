import { describe, expect, it } from 'vitest';
import { auditJobLabel, renderAuditTable, summarizeChange } from '../../src/cli/format/audit-list.js';
import type { AuditRecord } from '../../src/ipc/protocol.js';

const job = {
  id: 'job-1',
  name: 'nightly',
  state: 'active',
  version: 3,
  updatedAt: 1,
  nextRunAt: 100,
  schedule: { kind: 'cron', expression: '0 3 * * *' },
  target: { kind: 'command', argv: ['./backup.sh'], shell: null, cwd: null, env: { TOKEN: 'old-secret' } },
  payload: { key: 'old' },
  labels: { a: '1', b: '2' },
  retry: { maxRetries: 0, initialBackoffMs: 10_000, factor: 2, maxBackoffMs: 3_600_000, jitter: true },
};

describe('summarizeChange', () => {
  it('given no before and a job after, says created', () => {
    expect(summarizeChange(null, job)).toBe('created');
  });

  it('given a pause, shows the state change and hides bookkeeping (version, updatedAt, nextRunAt)', () => {
    expect(summarizeChange(job, { ...job, state: 'paused', version: 4, updatedAt: 2, nextRunAt: null })).toBe(
      'state: active → paused',
    );
  });

  it('given nested changes, names them one level deep with their values', () => {
    const after = {
      ...job,
      schedule: { kind: 'cron', expression: '30 4 * * *' },
      retry: { ...job.retry, maxRetries: 3 },
    };
    expect(summarizeChange(job, after)).toBe(
      'schedule.expression: 0 3 * * * → 30 4 * * *, retry.maxRetries: 0 → 3',
    );
  });

  it('given changed env and payload, names them without their values, which may be secrets', () => {
    const after = {
      ...job,
      target: { ...job.target, env: { TOKEN: 'new-secret' } },
      payload: { key: 'new' },
    };
    const summary = summarizeChange(job, after);
    expect(summary).toBe('target.env, payload');
    expect(summary).not.toMatch(/secret|new|old/);
  });

  it('given a command turned into an HTTP call, says the target changed in one word', () => {
    const after = {
      ...job,
      target: { kind: 'http', method: 'GET', url: 'https://example.com/', headers: {} },
    };
    expect(summarizeChange(job, after)).toBe('target');
  });

  it('given labels written in another order, sees no change', () => {
    expect(summarizeChange(job, { ...job, labels: { b: '2', a: '1' }, version: 4 })).toBe('no change');
  });

  it('given a killed run, shows its state change', () => {
    expect(summarizeChange({ runId: 'r-1', state: 'running' }, { runId: 'r-1', state: 'cancelled' })).toBe(
      'state: running → cancelled',
    );
  });

  it('given a run that failed for good (no before), lists what was recorded', () => {
    expect(summarizeChange(null, { runId: 'r-1', attempt: 3, state: 'failed', error: null })).toBe(
      'runId=r-1 attempt=3 state=failed',
    );
  });

  it('given a removal, says removed', () => {
    expect(summarizeChange(job, null)).toBe('removed');
  });
});

describe('auditJobLabel', () => {
  const record: AuditRecord = {
    id: 'a',
    at: 0,
    actor: 'bob',
    action: 'run.kill',
    jobId: 'job-1',
    before: {},
    after: {},
  };

  it('given entries holding the job, shows its name', () => {
    expect(auditJobLabel({ ...record, before: job, after: { ...job, name: 'renamed' } })).toBe('renamed');
  });

  it('given a run entry that names its job, shows the name', () => {
    expect(auditJobLabel({ ...record, after: { runId: 'r-1', jobName: 'nightly' } })).toBe('nightly');
  });

  it('given entries about a run, falls back to the job id', () => {
    expect(auditJobLabel(record)).toBe('job-1');
  });
});

describe('renderAuditTable', () => {
  it('given entries, renders TIME, ACTOR, ACTION, JOB and CHANGE', () => {
    const table = renderAuditTable(
      [
        {
          id: 'a-1',
          at: Date.parse('2026-06-01T10:00:00Z'),
          actor: 'alice',
          action: 'job.pause',
          jobId: 'job-1',
          before: job,
          after: { ...job, state: 'paused' },
        },
      ],
      { zone: 'UTC', now: Date.parse('2026-06-01T12:00:00Z') },
    );
    expect(table.split('\n')).toEqual([
      'TIME                     ACTOR  ACTION     JOB      CHANGE',
      '2026-06-01 10:00:00 UTC  alice  job.pause  nightly  state: active → paused',
    ]);
  });
});

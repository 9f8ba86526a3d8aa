import { describe, expect, it } from 'vitest';
import { nextRunCell } from '../../src/tui/cells.js';
import { apply, event, loaded, makeJob, NOW } from './fixtures.js';

describe('the dashboard marks overdue jobs', () => {
  it('Given a listed job, when job:overdue arrives, then its row says overdue; when job:recovered arrives, then it no longer does', () => {
    const job = makeJob({ name: 'heartbeat' });
    const state = loaded([job]);

    const overdue = apply(
      state,
      event('job:overdue', { jobId: job.id, jobName: job.name, since: NOW - 1_000 }),
    );
    const marked = overdue.jobs.get(job.id)!;
    expect(marked.overdueSince).toBe(NOW - 1_000);
    expect(nextRunCell(marked, NOW)).toEqual({ text: '⚠ overdue', tone: 'bad' });

    const cleared = apply(
      overdue,
      event('job:recovered', { jobId: job.id, jobName: job.name, since: NOW - 1_000, runId: 'r1' }),
    );
    expect(cleared.jobs.get(job.id)!.overdueSince).toBeUndefined();
    expect(nextRunCell(cleared.jobs.get(job.id)!, NOW).text).not.toContain('overdue');
  });
});

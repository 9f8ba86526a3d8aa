import type { Job } from '../../core/job.js';
import { jobStatus } from '../../core/job-status.js';
import { formatLabels } from './labels.js';
import type { ScheduleDescriber } from './schedule.js';
import { colourJobState } from './state.js';
import { renderTable } from './table.js';
import { formatInstantWithRelative, type Viewer } from './time.js';

export function renderJobTable(jobs: readonly Job[], viewer: Viewer, describe: ScheduleDescriber): string {
  const rows = jobs.map((job) => [
    job.name,
    colourJobState(jobStatus(job)) + (job.overdueSince === undefined ? '' : ' overdue'),
    describe(job.schedule, job.timezone),
    job.nextRunAt === null ? '-' : formatInstantWithRelative(job.nextRunAt, viewer),
    formatLabels(job.labels),
  ]);
  return renderTable(
    [
      { header: 'NAME' },
      { header: 'STATE' },
      { header: 'SCHEDULE' },
      { header: 'NEXT RUN' },
      { header: 'LABELS' },
    ],
    rows,
  );
}

import { formatDuration } from '../../core/duration.js';
import type { RunSummary } from '../../core/run.js';
import { describeExit, describeRunState, runDurationMs } from './run-detail.js';
import { renderTable } from './table.js';
import { formatInstant, type Viewer } from './time.js';

export function renderRunTable(runs: readonly RunSummary[], viewer: Viewer): string {
  const rows = runs.map((run) => {
    const duration = runDurationMs(run, viewer.now);
    return [
      run.id,
      run.jobName,
      formatInstant(run.scheduledFor, viewer.zone),
      String(run.attempt),
      describeRunState(run, viewer.now),
      duration === null ? '-' : formatDuration(duration),
      describeExit(run) || '-',
    ];
  });
  return renderTable(
    [
      { header: 'RUN ID' },
      { header: 'JOB' },
      { header: 'SCHEDULED FOR' },
      { header: 'ATTEMPT', align: 'right' },
      { header: 'STATE' },
      { header: 'DURATION', align: 'right' },
      { header: 'EXIT' },
    ],
    rows,
  );
}

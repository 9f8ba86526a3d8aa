import { formatDuration } from '../../core/duration.js';
import type { RunSummary } from '../../core/run.js';
import { describeExit, describeRunState, runDurationMs } from './run-detail.js';
import { renderTable } from './table.js';
import { formatInstant, type Viewer } from './time.js';

/** The runs as a table; a NODE column when they ran on more than one node (a federation). */
export function renderRunTable(runs: readonly RunSummary[], viewer: Viewer): string {
  const showNode = new Set(runs.map((run) => run.node)).size > 1;
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
      ...(showNode ? [run.node] : []),
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
      ...(showNode ? [{ header: 'NODE' }] : []),
    ],
    rows,
  );
}

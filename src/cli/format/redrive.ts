import type { RedriveResult } from '../../ipc/protocol.js';
import { describeExit } from './run-detail.js';
import { renderTable } from './table.js';
import { formatInstant, type Viewer } from './time.js';

/** What `sched retry --job J --since T` did or would do: each dead run and its new attempt, then what it skipped. */
export function renderRedrive(result: RedriveResult, viewer: Viewer): string {
  const { job, dryRun, redriven, skipped } = result;
  const range =
    `since ${formatInstant(result.since, viewer.zone)}` +
    (result.until === null ? '' : ` until ${formatInstant(result.until, viewer.zone)}`);
  const lines: string[] = [];
  if (redriven.length === 0) lines.push(`No dead runs of ${job.name} ${range}; nothing to redrive.`);
  else {
    const count = `${redriven.length} dead run${redriven.length === 1 ? '' : 's'} of ${job.name} ${range}`;
    lines.push(dryRun ? `Would redrive ${count}:` : `Redrove ${count}; each has a new attempt:`);
    const rows = redriven.map(({ dead, retry }) => [
      dead.id,
      formatInstant(dead.scheduledFor, viewer.zone),
      String(dead.attempt),
      `${dead.state}${describeExit(dead) ? ` (${describeExit(dead)})` : ''}`,
      ...(dryRun ? [] : [retry?.id ?? '-', String(retry?.attempt ?? '-')]),
    ]);
    const headers = [
      { header: 'DEAD RUN' },
      { header: 'SCHEDULED FOR' },
      { header: 'ATTEMPT', align: 'right' as const },
      { header: 'ENDED' },
      ...(dryRun ? [] : [{ header: 'NEW RUN' }, { header: 'NEW ATTEMPT', align: 'right' as const }]),
    ];
    lines.push(renderTable(headers, rows));
  }
  if (skipped.length > 0) {
    const listed = skipped.map(({ run, retriedBy }) => `${run.id} (by ${retriedBy})`).join(', ');
    lines.push(
      `Skipped ${skipped.length} run${skipped.length === 1 ? '' : 's'} that a later attempt already follows (a retry, or an earlier redrive): ${listed}.`,
    );
  }
  if (result.more)
    lines.push('There are more dead runs than one redrive takes; run it again for the next ones.');
  if (dryRun && redriven.length > 0)
    lines.push('Nothing was changed; run it again without --dry-run to redrive them.');
  return lines.join('\n');
}

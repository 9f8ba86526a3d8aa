import { explainOccurrence } from '../../core/schedule/explain.js';
import type { BackfillInstant, BackfillResult } from '../../ipc/protocol.js';
import { renderTable } from './table.js';
import { formatInstant, formatUtc } from './time.js';

/**
 * `sched backfill`: a dry run lists each instant and what would happen to it; a real one says how many runs
 * it made and how they run, since a thousand runs started at once is a different event from one at a time.
 */
export function renderBackfill(result: BackfillResult): string {
  const { job } = result;
  const zone = job.timezone;
  const count = (action: BackfillInstant['action']) =>
    result.instants.filter((instant) => instant.action === action).length;
  const range = `${formatInstant(result.from, zone)} to ${formatInstant(result.to, zone)}`;
  const order = describeOrder(result);
  const others = [
    count('exists') > 0 ? `${plural(count('exists'), 'already has', 'already have')} a run` : null,
    count('dst-skipped') + count('deduplicated') > 0
      ? `${plural(count('dst-skipped') + count('deduplicated'), 'is', 'are')} passed over by a clock change`
      : null,
  ].filter((text): text is string => text !== null);
  const rest = others.length === 0 ? '' : ` Of the others, ${others.join('; ')}.`;
  if (result.instants.length === 0) return `${job.name} was not due from ${range}; nothing to run.`;
  if (!result.dryRun) {
    const made = result.created === 0 ? 'Created no runs' : `Created ${countOf(result.created, 'run')}`;
    const how = result.created > 1 ? `; they run ${order}` : '';
    return `${made} of ${job.name} for ${countOf(result.instants.length, 'instant')} from ${range}${how}.${rest}`;
  }
  const header =
    `Dry run: ${job.name} was due ${countOf(result.instants.length, 'time')} from ${range}; ` +
    `${count('run') === 0 ? 'none' : count('run')} would run${count('run') > 1 ? `, ${order}` : ''}.${rest}`;
  const table = renderTable(
    [{ header: `DUE (${zone})` }, { header: 'UTC' }, { header: 'ACTION' }, { header: 'NOTE' }],
    result.instants.map((instant) => [
      instant.note?.kind === 'skipped'
        ? `${instant.wall.slice(0, 10)} ${instant.wall.slice(11, 19)} (no such time)`
        : formatInstant(instant.scheduledFor, zone),
      formatUtc(instant.scheduledFor),
      actionText(instant, result.dryRun),
      explainOccurrence(
        { at: instant.scheduledFor, wall: instant.wall, note: instant.note },
        job.policy.dst,
        zone,
      ) ?? '',
    ]),
  );
  return `${header}\n\n${table}`;
}

function describeOrder(result: BackfillResult): string {
  const flag = `--concurrency ${result.job.policy.concurrency}`;
  return result.order === 'parallel' ? `all at once (${flag})` : `one after another, oldest first (${flag})`;
}

function actionText(instant: BackfillInstant, dryRun: boolean): string {
  switch (instant.action) {
    case 'run':
      return dryRun ? 'would run' : `run ${instant.runId ?? ''}`.trimEnd();
    case 'exists':
      return instant.runId === null ? 'already has a run' : `already ran (${instant.runId})`;
    case 'dst-skipped':
      return 'not run: no such wall time';
    case 'deduplicated':
      return 'not run: repeated wall time';
  }
}

function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

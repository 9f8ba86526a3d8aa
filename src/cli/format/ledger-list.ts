import type { LedgerEntry } from '../../core/ledger/entry.js';
import { renderTable } from './table.js';
import { formatInstant } from './time.js';

/**
 * `sched history JOB --all-occurrences`: every instant the job was due, run or not, in the job's own zone
 * (the zone its schedule is read in, so 03:00 reads as 03:00). Outcomes are the ledger's codes as they are,
 * so the text can be grepped for the same words `--json` holds.
 */
export function renderLedgerTable(entries: readonly LedgerEntry[], zone: string): string {
  const rows = entries.map((entry) => [
    dueText(entry, zone),
    entry.outcome,
    runsText(entry),
    entry.reason === '' ? '-' : entry.reason,
  ]);
  return renderTable(
    [{ header: `DUE (${zone})` }, { header: 'OUTCOME' }, { header: 'RUNS' }, { header: 'WHY' }],
    rows,
  );
}

/** The instant in the zone; a wall time the clocks skipped has no instant of its own, so it is shown as it was. */
function dueText(entry: LedgerEntry, zone: string): string {
  if (entry.wall !== undefined && entry.wall !== null) {
    return `${entry.wall.slice(0, 10)} ${entry.wall.slice(11, 19)} (no such time)`;
  }
  return formatInstant(entry.scheduledFor, zone);
}

/** `R1 succeeded`, `R1, R2 failed`, `R1 running`, `R1 waiting` (not started yet), or `-` when nothing ran. */
export function runsText(entry: Pick<LedgerEntry, 'runIds' | 'finalState' | 'waiting'>): string {
  if (entry.runIds.length === 0) return '-';
  const state = entry.finalState ?? (entry.waiting === true ? 'waiting' : 'running');
  return `${entry.runIds.join(', ')} ${state.replace('_', ' ')}`;
}

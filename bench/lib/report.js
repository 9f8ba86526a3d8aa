import fs from 'node:fs';
import os from 'node:os';
import { renderTable } from './table.js';

/**
 * Every benchmark reports rows of one shape, so run-all can put them all in one table:
 *   { benchmark, scenario, n, rate, rateUnit, p50, p99, max, notes }   (p50/p99/max in ms)
 * plus `figures`, everything it measured, for the JSON line.
 */
export const SUMMARY_COLUMNS = [
  { header: 'benchmark', value: (row) => row.benchmark, align: 'left' },
  { header: 'scenario', value: (row) => row.scenario, align: 'left' },
  { header: 'n', value: (row) => row.n },
  {
    header: 'throughput',
    value: (row) => (row.rate === undefined ? '' : `${formatRate(row.rate)} ${row.rateUnit}`),
    align: 'right',
  },
  { header: 'p50 ms', value: (row) => row.p50 },
  { header: 'p99 ms', value: (row) => row.p99 },
  { header: 'max ms', value: (row) => row.max },
  { header: 'notes', value: (row) => row.notes ?? '', align: 'left' },
];

function formatRate(rate) {
  return Number.isFinite(rate) ? Math.round(rate).toLocaleString('en-US') : '–';
}

export function machine() {
  return {
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
  };
}

/**
 * Prints a benchmark's table; under run-all (BENCH_RESULT_FILE set) also hands its rows and figures
 * over in that file.
 */
export function emitResult({ benchmark, rows, figures }) {
  console.log(`\n${benchmark}\n${renderTable(SUMMARY_COLUMNS.slice(1), rows)}\n`);
  const file = process.env.BENCH_RESULT_FILE;
  if (file) fs.writeFileSync(file, JSON.stringify({ benchmark, rows, figures }));
}

/** Progress on stderr, so stdout keeps only the tables. */
export function progress(message) {
  console.error(`  · ${message}`);
}

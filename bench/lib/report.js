import fs from 'node:fs';
import os from 'node:os';
import { describeCheck, describeGoal, rowChecks } from './goals.js';
import { machineLoadMeter } from './process-cpu.js';
import { renderTable } from './table.js';

/**
 * Every benchmark reports rows of one shape, so run-all can put them all in one table:
 *   { benchmark, scenario, n, rate, rateUnit, p50, p99, max, notes, goals }   (p50/p99/max in ms)
 * plus `figures`, everything it measured, for the JSON line. `goals` maps the ids of the goals the row
 * measures (lib/goals.js) to its figure for each; emitResult adds `load`, how busy the machine was.
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
  {
    header: 'goal',
    value: (row) =>
      Object.keys(row.goals ?? {})
        .map(describeGoal)
        .join('; '),
    align: 'left',
  },
  { header: 'met', value: (row) => rowChecks(row).map(describeCheck).join('; '), align: 'left' },
  { header: 'load avg', value: (row) => row.load?.loadAverage[0] },
  { header: 'others %', value: (row) => row.load && Math.round(row.load.otherProcessesPct) },
  { header: 'notes', value: (row) => row.notes ?? '', align: 'left' },
];

/**
 * How busy the machine was while this benchmark ran: the load average when it started, and over its
 * run the % of both cores busy and the % taken by processes it did not start (a shared machine's noise
 * is in every figure). Started when the benchmark loads this module; read when it emits its result.
 */
const loadAverageAtStart = os.loadavg().map((load) => Number(load.toFixed(2)));
const loadMeter = machineLoadMeter();

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
  const load = { loadAverage: loadAverageAtStart, ...loadMeter.stop() };
  const loadedRows = rows.map((row) => ({ ...row, load }));
  console.log(`\n${benchmark}\n${renderTable(SUMMARY_COLUMNS.slice(1), loadedRows)}\n`);
  const file = process.env.BENCH_RESULT_FILE;
  if (file) fs.writeFileSync(file, JSON.stringify({ benchmark, rows: loadedRows, figures, load }));
}

/** Progress on stderr, so stdout keeps only the tables. */
export function progress(message) {
  console.error(`  · ${message}`);
}

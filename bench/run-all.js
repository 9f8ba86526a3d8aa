// `npm run bench`: builds (in the npm script), then runs each benchmark in its own Node process, one after
// another, and ends with one table of every figure and one JSON line for machines.
// Each benchmark also runs alone: `node bench/creates.js` (after `npm run build`). Knobs: see lib/config.js
// and the head of each file; BENCH_QUICK=1 for a quick smoke run, BENCH_ONLY=creates,cli-startup to pick.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { QUICK, REPS } from './lib/config.js';
import { goalById, rowChecks, tallyGoals } from './lib/goals.js';
import { makeTempDir, removeTempDir, trackChild } from './lib/processes.js';
import { SUMMARY_COLUMNS, machine } from './lib/report.js';
import { renderTable } from './lib/table.js';

const BENCHMARKS = [
  'creates',
  'creates-vs-peers',
  'get-latency',
  'security-cost',
  'firing-lateness',
  'burst',
  'spawn-lateness',
  'concurrent-children',
  'cli-startup',
  'dash-redraw',
  'federation',
  'federation-capacity',
  'event-relay',
  'api-throughput',
  'peer-mode',
  'peer-failover',
  'peer-partition',
  'peer-capacity',
  'snapshot-install',
  'crash-cycles',
  'million-jobs',
  'simulation',
];
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const selected = only ? BENCHMARKS.filter((name) => only.includes(name)) : BENCHMARKS;

function runBenchmark(name, resultFile) {
  const script = fileURLToPath(new URL(`./${name}.js`, import.meta.url));
  return new Promise((resolve) => {
    const child = trackChild(
      spawn(process.execPath, [script], {
        env: { ...process.env, BENCH_RESULT_FILE: resultFile },
        stdio: 'inherit',
      }),
    );
    child.once('exit', (code, signal) => resolve(code ?? signal));
  });
}

/** A check with its goal spelled out, for the JSON line. */
function goalOf(check) {
  const { measure, issue, direction, target, unit } = goalById(check.id);
  return { goal: check.id, measure, issue, direction, target, unit, value: check.value, met: check.met };
}

/** Keeps the JSON line readable: microseconds are noise at these scales. */
const roundFloats = (_key, value) =>
  typeof value === 'number' && !Number.isInteger(value) ? Number(value.toFixed(3)) : value;
const loadAverage = () => os.loadavg().map((load) => Number(load.toFixed(2)));
const started = performance.now();
const scratch = makeTempDir('results');
const results = [];
const failures = [];
console.log(
  `sched benchmarks${QUICK ? ' (BENCH_QUICK)' : ''}: ${selected.join(', ')}; ${REPS} rep(s) where cheap`,
);
console.log(`machine: ${JSON.stringify(machine())}, load average ${loadAverage().join(' ')}`);
for (const name of selected) {
  const resultFile = path.join(scratch, `${name}.json`);
  const loadBefore = loadAverage();
  const benchStarted = performance.now();
  console.log(`\n▶ ${name} (load average ${loadBefore[0]})`);
  const exit = await runBenchmark(name, resultFile);
  const seconds = (performance.now() - benchStarted) / 1000;
  if (exit !== 0 || !fs.existsSync(resultFile)) {
    failures.push({ name, exit });
    console.error(`✗ ${name} failed (exit ${exit}) after ${seconds.toFixed(0)} s`);
    continue;
  }
  // The benchmark measured the machine's load itself (lib/report.js), over its own run.
  const result = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
  results.push({ ...result, name, seconds, loadBefore, machineLoad: result.load });
}
removeTempDir(scratch);
const totalSeconds = (performance.now() - started) / 1000;
const allRows = results.flatMap((result) => result.rows);
const goals = tallyGoals(allRows);

console.log(`\n=== sched benchmark summary (${totalSeconds.toFixed(0)} s; latencies in ms) ===`);
console.log(renderTable(SUMMARY_COLUMNS, allRows));
console.log(
  'goal: from issue #17 (#11 for federation, #12 for peer mode), lib/goals.js; load avg: the 1-minute load average when ' +
    'the benchmark started; others %: of both cores, taken by processes the benchmark did not start',
);
for (const { name, seconds, machineLoad } of results) {
  console.log(
    `${name}: ${seconds.toFixed(0)} s; both cores ${Math.round(machineLoad.machineBusyPct)}% busy, ` +
      `${Math.round(machineLoad.otherProcessesPct)}% of their capacity taken by processes not started by the benchmark`,
  );
}
if (failures.length) console.log(`failed: ${failures.map((failure) => failure.name).join(', ')}`);
console.log(
  JSON.stringify(
    {
      sched_bench: 1,
      at: new Date().toISOString(),
      quick: QUICK,
      reps: REPS,
      machine: machine(),
      totalSeconds,
      failures,
      goals,
      results: Object.fromEntries(
        results.map((result) => [
          result.name,
          {
            seconds: result.seconds,
            loadBefore: result.loadBefore,
            machineLoad: result.machineLoad,
            checks: result.rows.flatMap((row) =>
              rowChecks(row).map((check) => ({ scenario: row.scenario, ...goalOf(check), load: row.load })),
            ),
            figures: result.figures,
          },
        ]),
      ),
    },
    roundFloats,
  ),
);
for (const id of goals.missed) console.log(`missed: ${goalById(id).measure} (${goalById(id).issue})`);
console.log(
  `goals: ${goals.met.length} met, ${goals.missed.length} missed, ${goals.notMeasured.length} not measured`,
);
// A missed goal is a figure to read, not a failure: the exit code says only whether a benchmark crashed.
process.exitCode = failures.length ? 1 : 0;

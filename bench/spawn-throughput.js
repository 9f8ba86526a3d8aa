// 7. Command executor throughput, without a daemon: `CommandExecutor` (from dist/) is driven directly at
//    fixed request rates of `true`, each rate in a fresh Node process so one rate's leftovers (children
//    not yet reaped, a worker still busy) cannot slow the next. For each rate: requests made, runs
//    finished inside the window and per second, "done after" (finishedAt − request time; a run still
//    unfinished once the settle time is over counts as infinitely late), the most children alive at once
//    and the most runs handed over, and whether the main thread stays responsive while the worker spawns
//    (lateness of a 10 ms setTimeout probe on the main thread).
// Knobs: BENCH_THROUGHPUT_RATES (300,500,700), BENCH_THROUGHPUT_WINDOW_MS (10000), BENCH_THROUGHPUT_SETTLE_MS
// (5000); BENCH_DIST=/path/to/dist measures another build (e.g. a copy of dist/ from before a change).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { knob } from './lib/config.js';
import { cpuSeconds } from './lib/process-cpu.js';
import { trackChild } from './lib/processes.js';
import { emitResult, progress } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { renderTable } from './lib/table.js';

const RATES = (process.env.BENCH_THROUGHPUT_RATES ?? '300,500,700').split(',').map(Number);
const WINDOW_MS = knob('THROUGHPUT_WINDOW_MS', 10_000, 3_000);
const SETTLE_MS = knob('THROUGHPUT_SETTLE_MS', 5_000, 3_000);
const PROBE_INTERVAL_MS = 10;
/** How often the driver tops the requests up to `rate × elapsed`; small, so the load is steady. */
const DRIVE_INTERVAL_MS = 5;

const distDir = process.env.BENCH_DIST ?? fileURLToPath(new URL('../dist', import.meta.url));
const rateArg = process.argv.indexOf('--rate');

if (rateArg === -1) await runAllRates();
else await measureOneRate(Number(process.argv[rateArg + 1]));

async function runAllRates() {
  const script = fileURLToPath(import.meta.url);
  const results = [];
  for (const rate of RATES) {
    progress(`executor throughput: ${rate} runs/s of \`true\` for ${WINDOW_MS / 1000} s (${distDir})`);
    const child = trackChild(
      spawn(process.execPath, [script, '--rate', String(rate)], { stdio: ['ignore', 'pipe', 'inherit'] }),
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    const code = await new Promise((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    if (code !== 0) throw new Error(`the ${rate}/s measurement exited with code ${code}`);
    results.push(JSON.parse(stdout.trim().split('\n').at(-1)));
  }
  console.log(
    `\nexecutor throughput (window ${WINDOW_MS / 1000} s, settle ${SETTLE_MS / 1000} s)\n` +
      renderTable(
        [
          { header: 'rate /s', value: (r) => r.rate },
          { header: 'requests', value: (r) => r.requests },
          { header: 'finished in window', value: (r) => r.finishedInWindow },
          { header: 'finish rate /s', value: (r) => r.finishedPerSec },
          { header: 'finished by settle', value: (r) => r.finishedBySettle },
          { header: 'done after p50 ms', value: (r) => r.doneAfterMs.p50 },
          { header: 'p99 ms', value: (r) => r.doneAfterMs.p99 },
          { header: 'max alive', value: (r) => r.maxAlive },
          { header: 'max handed over', value: (r) => r.maxHandedOver },
          { header: 'main late p99 ms', value: (r) => r.mainLatenessMs.p99 },
          { header: 'main late max ms', value: (r) => r.mainLatenessMs.max },
          { header: 'CPU %', value: (r) => r.cpuPct },
        ],
        results,
      ),
  );
  emitResult({
    benchmark: `command executor throughput, \`true\` at fixed rates (window ${WINDOW_MS / 1000} s)`,
    rows: results.map((r) => ({
      benchmark: 'executor throughput',
      scenario: `${r.rate} runs/s, done after (ms)`,
      n: r.finishedInWindow,
      rate: r.finishedPerSec,
      rateUnit: 'runs/s',
      p50: r.doneAfterMs.p50,
      p99: r.doneAfterMs.p99,
      max: r.doneAfterMs.max,
      notes:
        `unfinished after settle ${r.requests - r.finishedBySettle}, not succeeded ${r.notSucceeded}, ` +
        `max alive ${r.maxAlive}, main loop late p99 ${r.mainLatenessMs.p99.toFixed(1)} ms`,
    })),
    figures: results,
  });
}

async function measureOneRate(rate) {
  const moduleUrl = pathToFileURL(path.join(distDir, 'daemon/executor/command-executor.js'));
  const { CommandExecutor } = await import(moduleUrl.href);
  const executor = await CommandExecutor.start();
  const env = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
  const requestedAt = new Map();
  const withPid = new Set();
  const doneAfter = [];
  let alive = 0;
  let maxAlive = 0;
  let maxHandedOver = 0;
  let notSucceeded = 0;
  let finishedInWindow = 0;
  executor.on('started', (runId, pid) => {
    if (pid === null) return;
    withPid.add(runId);
    maxAlive = Math.max(maxAlive, ++alive);
  });
  executor.on('finished', (runId, outcome) => {
    if (withPid.delete(runId)) alive--;
    if (outcome.state !== 'succeeded') notSucceeded++;
    if (outcome.finishedAt < windowEnd) finishedInWindow++;
    doneAfter.push(outcome.finishedAt - requestedAt.get(runId));
  });

  const total = Math.round((rate * WINDOW_MS) / 1000);
  const lateness = [];
  let issued = 0;
  const t0 = performance.now();
  const windowStart = Date.now();
  const windowEnd = windowStart + WINDOW_MS;
  const cpuBefore = cpuSeconds(process.pid);

  // A steady load: every few ms, top the requests up to what the rate asks for by now.
  let allIssued;
  const issuing = new Promise((resolve) => (allIssued = resolve));
  const driver = setInterval(() => {
    const due = Math.min(total, Math.floor(((performance.now() - t0) * rate) / 1000));
    for (; issued < due; issued++) {
      const runId = `run-${issued}`;
      requestedAt.set(runId, Date.now());
      executor.run({
        runId,
        argv: ['true'],
        shell: null,
        cwd: null,
        env,
        runAs: null,
        stdin: null,
        timeoutMs: null,
      });
    }
    maxHandedOver = Math.max(maxHandedOver, executor.runningCount());
    if (issued < total) return;
    clearInterval(driver);
    allIssued();
  }, DRIVE_INTERVAL_MS);

  // The main thread's responsiveness: how late a 10 ms timer fires while all this goes on.
  let probing = true;
  const probe = (expected) =>
    setTimeout(() => {
      const now = performance.now();
      lateness.push(now - expected);
      if (probing) probe(now + PROBE_INTERVAL_MS);
    }, PROBE_INTERVAL_MS);
  probe(performance.now() + PROBE_INTERVAL_MS);

  await sleep(WINDOW_MS);
  await issuing; // a main thread too busy to keep the pace still makes every request, late
  probing = false;
  const cpuPct = ((cpuSeconds(process.pid) - cpuBefore) / (WINDOW_MS / 1000)) * 100;
  for (const deadline = Date.now() + SETTLE_MS; executor.runningCount() > 0 && Date.now() < deadline;)
    await sleep(50);
  const finishedBySettle = doneAfter.length;
  const unfinished = Array.from({ length: issued - finishedBySettle }, () => Infinity);
  const doneAfterMs = finiteOrUnfinished(summarize([...doneAfter, ...unfinished]));
  const notSucceededBySettle = notSucceeded;
  await executor.stop();

  const result = {
    rate,
    requests: issued,
    finishedInWindow,
    finishedPerSec: finishedInWindow / (WINDOW_MS / 1000),
    finishedBySettle,
    notSucceeded: notSucceededBySettle,
    doneAfterMs,
    maxAlive,
    maxHandedOver,
    mainLatenessMs: summarize(lateness),
    cpuPct,
  };
  console.log(JSON.stringify(result));
}

/** JSON has no Infinity: a percentile that lands on an unfinished run says so in words. */
function finiteOrUnfinished(stats) {
  return Object.fromEntries(
    Object.entries(stats).map(([key, value]) => [key, Number.isFinite(value) ? value : 'unfinished']),
  );
}

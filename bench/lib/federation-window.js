// One measured window of a federation: N daemons on a fresh PostgreSQL database filled with jobs `every
// <interval>` calling a loopback HTTP endpoint, the runs they fire matched against every instant due in the
// window. federation.js (fixed load, 1 and 3 daemons) and federation-capacity.js (rising load, 3 daemons)
// both measure this way; see bench/README.md.
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDaemon } from './daemon.js';
import { countOccurrenceOutcomes, readFiredRuns, scheduleFrom, writeSpreadJobs } from './postgres-data.js';
import { cpuMeter, cpuSeconds, machineLoadMeter } from './process-cpu.js';
import { readStatements, resetStatements } from './pg-statements.js';
import { progress } from './report.js';
import { summarize } from './stats.js';

/** After the window, before stopping: room for late fires to show up as late, not as missed. */
const SETTLE_MS = 3_000;
/** How long N daemons may take to start and publish a map that gives each of them shards. */
const CLUSTER_TIMEOUT_MS = 60_000;
/** Lateness is also shown slice by slice, so a backlog that builds over the window is visible. */
const SLICE_MS = 10_000;

/**
 * Starts `count` daemons on the store: the first alone (it makes the secret key file every daemon on a
 * store must share), then the others at once with that file; if one fails, stops those that started.
 */
async function startDaemons(count, url, label) {
  const args = ['--store', url];
  const first = await startDaemon({ label: `${label}-0`, args });
  const env = { SCHED_KEY_FILE: path.join(first.home, 'secret.key') };
  const results = await Promise.allSettled(
    Array.from({ length: count - 1 }, (_, i) => startDaemon({ label: `${label}-${i + 1}`, args, env })),
  );
  const started = [
    first,
    ...results.filter((result) => result.status === 'fulfilled').map((result) => result.value),
  ];
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
 * fired; fires/s counts every run created in the window, whatever instant it was for. `jobs` are
 * `{ id, anchorMs }`; runs as lib/runs-db.js reads them. Also used by peer-capacity.js.
 */
export function analyzeWindow(jobs, runs, { from, to, intervalMs }) {
  const expected = new Map();
  for (const job of jobs) {
    let at = job.anchorMs + Math.ceil((from - job.anchorMs) / intervalMs) * intervalMs;
    for (; at < to; at += intervalMs) expected.set(`${job.id}@${at}`, at);
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

/**
 * Fills a fresh database `database` with `jobCount` jobs every `intervalMs` calling `target`, starts
 * `daemonCount` daemons on it, measures `windowMs` from `warmupMs` after the first instant once they share
 * one shard map, stops them and analyzes the runs. Returns every figure (see the head of federation.js).
 */
export async function measureFederationWindow(
  postgres,
  target,
  { label, database, daemonCount, jobCount, intervalMs, windowMs, leadMs, warmupMs = 0, observe },
) {
  const url = await postgres.createDatabase(database);
  progress(`${label}: writing ${jobCount.toLocaleString('en-US')} jobs into a fresh database`);
  const fill = await writeSpreadJobs(url, {
    count: jobCount,
    intervalMs,
    targetUrl: target.url,
    prefix: database,
  });
  const firstAt = Date.now() + leadMs;
  const scheduleMs = await scheduleFrom(url, fill.jobs, intervalMs, firstAt);
  progress(
    `${label}: filled in ${(fill.writeMs / 1000).toFixed(1)} s ` +
      `(${Math.round(jobCount / (fill.writeMs / 1000))} jobs/s), first instant in ${((firstAt - Date.now()) / 1000).toFixed(1)} s`,
  );
  const spawnedAt = Date.now();
  const daemons = await startDaemons(daemonCount, url, database);
  try {
    const cluster = await waitForCluster(daemons);
    const readyAt = Date.now();
    progress(
      `${label}: map term ${cluster.term}, shards ${cluster.shards.join('/')}, ` +
        `${readyAt - spawnedAt} ms after the spawn, ${firstAt - readyAt} ms before the first instant`,
    );
    // A cluster that formed after the first instant: its first instants fired under a changing map, so
    // the window starts later (and says so).
    const from = Math.max(firstAt + warmupMs, readyAt + 1_000);
    if (from > firstAt + warmupMs) {
      progress(`! the cluster formed ${readyAt - firstAt} ms after the first instant; window starts later`);
    }
    const to = from + windowMs;
    // A benchmark that watches the daemons as they fire (event-relay.js) starts watching here; what it
    // saw is `observed` in the result.
    const observer = observe ? await observe(daemons, { from, to }) : null;
    await sleep(from - Date.now());
    const callsBefore = target.calls();
    const daemonCpu = daemons.map((daemon) => cpuMeter(daemon.pid));
    const postgresCpuBefore = postgres.cpuSeconds();
    const ownCpuBefore = cpuSeconds(process.pid);
    const machineLoad = machineLoadMeter();
    const counting = await resetStatements(url);
    progress(`${label}: measuring ${windowMs / 1000} s`);
    await sleep(to - Date.now());
    const statements = await readStatements(counting, target.calls() - callsBefore);
    const cpu = {
      daemonsPct: daemonCpu.map((meter) => meter.stop(windowMs)),
      postgresPct: ((postgres.cpuSeconds() - postgresCpuBefore) / (windowMs / 1000)) * 100,
      benchPct: ((cpuSeconds(process.pid) - ownCpuBefore) / (windowMs / 1000)) * 100,
    };
    // Both cores' use, and the part of it that was neither the daemons, PostgreSQL nor this process.
    cpu.machineBusyPct = machineLoad.stop().machineBusyPct;
    const oursPct = cpu.daemonsPct.reduce((sum, value) => sum + value, 0) + cpu.postgresPct + cpu.benchPct;
    cpu.otherProcessesPct = Math.max(0, cpu.machineBusyPct - oursPct / os.cpus().length);
    const httpCalls = target.calls() - callsBefore;
    await sleep(SETTLE_MS);
    const observed = observer ? await observer.stop() : null;
    await Promise.all(daemons.map((daemon) => daemon.stop()));
    const runs = await readFiredRuns(url);
    const fires = analyzeWindow(fill.jobs, runs, { from, to, intervalMs });
    fires.ledger = await countOccurrenceOutcomes(url, { from, to });
    if (statements) {
      progress(
        `${label}: ${statements.perFire?.toFixed(2)} statements per fire (per HTTP call in the window)`,
      );
      for (const row of statements.top)
        progress(
          `  ${row.perFire?.toFixed(3)}/fire ${row.calls} calls ${row.ms.toFixed(0)} ms ${row.hitsPerCall} hits/call  ${row.query}`,
        );
      for (const row of statements.tables)
        progress(
          `  ${row.table}: ${row.inserted} inserted, ${row.updated} updated (${row.hot} HOT, ${row.newPage} to a new page)`,
        );
    }
    return {
      label,
      daemons: daemonCount,
      jobs: jobCount,
      intervalMs,
      windowMs,
      fillMs: fill.writeMs,
      scheduleMs,
      clusterReadyMs: readyAt - spawnedAt,
      leadLeftMs: firstAt - readyAt,
      warmupMs,
      windowDelayedMs: from - firstAt - warmupMs,
      term: cluster.term,
      shards: cluster.shards,
      daemonStartMs: daemons.map((daemon) => daemon.startMs),
      httpCallsInWindow: httpCalls,
      cpu,
      fires,
      observed,
      statements,
    };
  } finally {
    await Promise.all(daemons.map((daemon) => daemon.dispose()));
  }
}

/**
 * Why a window's fires are not sustained: [] when their lateness p99 is within `p99LimitMs` and every
 * instant fired exactly once.
 */
export function windowShortfalls(fires, p99LimitMs) {
  const reasons = [];
  if (!(fires.latenessMs.p99 <= p99LimitMs))
    reasons.push(`p99 ${fires.latenessMs.p99} ms > ${p99LimitMs} ms`);
  if (fires.missed > 0) reasons.push(`${count(fires.missed)} missed`);
  if (fires.duplicates > 0) reasons.push(`${count(fires.duplicates)} duplicates`);
  return reasons;
}

const pct = (value) => `${Math.round(value)}%`;
const count = (value) => value.toLocaleString('en-US');

/**
 * What a window's table row says besides its rate and lateness: instants fired, missed (and why, from the
 * ledger), duplicates, runs per node, CPU. A list, for each benchmark to add its own.
 */
export function windowNotes(result) {
  const { fires } = result;
  const parts = [
    `fired ${count(fires.fired)}/${count(fires.expected)} expected`,
    `missed ${count(fires.missed)}`,
    `duplicates ${fires.duplicates}`,
  ];
  const unfired = Object.entries(fires.ledger).filter(([outcome]) => outcome !== 'ran');
  if (unfired.length)
    parts.push(`ledger ${unfired.map(([outcome, n]) => `${count(n)} ${outcome}`).join(', ')}`);
  if (fires.early) parts.push(`early ${fires.early}`);
  if (fires.catchups) parts.push(`${count(fires.catchups)} as catch-ups (> 2 s late)`);
  if (result.daemons > 1)
    parts.push(`per node ${fires.perNode.map((node) => count(node.runsInWindow)).join('/')}`);
  parts.push(cpuNote(result));
  if (result.windowDelayedMs > 0) parts.push(`window started ${result.windowDelayedMs} ms late`);
  return parts;
}

/** "CPU daemons 40%/38%/41%, postgres 60%, bench 12% (of one core); others took 5% of both cores". */
function cpuNote({ cpu, daemons }) {
  return (
    `CPU daemon${daemons > 1 ? 's' : ''} ${cpu.daemonsPct.map(pct).join('/')}, ` +
    `postgres ${pct(cpu.postgresPct)}, bench ${pct(cpu.benchPct)} (of one core); ` +
    `others took ${pct(cpu.otherProcessesPct)} of both cores`
  );
}

/** On stderr: lateness per node and per slice of the window, where a backlog or a reload spike shows. */
export function printLatenessBreakdown(fires) {
  for (const node of fires.perNode) {
    const { p50, p99, max } = node.latenessMs;
    progress(
      `  node ${node.node}: ${node.runsInWindow} runs, lateness p50 ${p50} ms, p99 ${p99} ms, max ${max} ms`,
    );
  }
  for (const slice of fires.slices) {
    progress(
      `  due ${slice.fromS}–${slice.fromS + SLICE_MS / 1000} s: ${slice.n} fired, ` +
        `lateness p50 ${slice.p50} ms, p99 ${slice.p99} ms, max ${slice.max} ms`,
    );
  }
}

// 18. Peer mode capacity (issue #12: "fires/s sustained by 3 and 5 nodes with 100,000 jobs (target the
//     PostgreSQL mode's)"). For each node count, a fresh cluster on loopback (lib/peer-cluster.js) stores
//     BENCH_PEER_CAP_STORED jobs `every 24h` (added through the leader's socket, 2 connections × 64 in
//     flight: they go through the log like any write, and none fires in a window), then is raised step by
//     step: each step adds jobs `every 1s` calling a loopback HTTP endpoint in this process (as
//     federation-capacity.js's do) up to N of them, N fires/s asked, waits BENCH_PEER_CAP_WARMUP_S and
//     measures a window. Runs are read from every node's database (live, read-only; one set by run id) and
//     matched against the instants due as federation-capacity.js matches them (lib/federation-window.js):
//     fires/s achieved vs asked, lateness (run.createdAt − scheduledFor) p50/p99/max, missed and duplicate
//     instants. The ramp stops after the first step whose p99 passes BENCH_PEER_CAP_P99_MS, or that missed
//     an instant or fired one twice; the highest sustained rate is the last step before it. Unlike the
//     PostgreSQL benchmark the steps share one cluster (filling 100,000 jobs through the log per step
//     would dominate the run), so each later step fires over a larger runs table.
//     Each step also meters the CPU over its window: every daemon's, this process's (the HTTP endpoint)
//     and the machine's. Every node applies every fire to its own SQLite, so the daemons' CPU per fire
//     grows with the nodes, and all of them share this machine's cores: the row says how many
//     microseconds of CPU a fire cost the cluster and each node, and the rate at which the cores would be
//     spent on it (a bound from CPU alone, where a node on a host of its own has a core to itself).
// Knobs: BENCH_PEER_CAP_NODES (3,5), BENCH_PEER_CAP_STEPS (fires/s per step: 500,1000,2000,3000,4000,5000;
//        quick 200,500), BENCH_PEER_CAP_STORED (100,000; quick 10,000), BENCH_PEER_CAP_WINDOW_S (20; quick
//        10), BENCH_PEER_CAP_WARMUP_S (5), BENCH_PEER_CAP_P99_MS (1000).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { QUICK, knob } from './lib/config.js';
import { analyzeWindow, windowShortfalls } from './lib/federation-window.js';
import { goalById } from './lib/goals.js';
import { startHttpTarget } from './lib/http-target.js';
import {
  reportFailure,
  runsSince,
  statusOf,
  until,
  untilSettled,
  withPeerCluster,
} from './lib/peer-cluster.js';
import { pipelined } from './lib/pipeline.js';
import { cpuMeter, machineLoadMeter } from './lib/process-cpu.js';
import { emitResult, progress } from './lib/report.js';
import { readEveryJobs } from './lib/runs-db.js';

const NODE_COUNTS = listKnob('PEER_CAP_NODES', '3,5', '3,5');
const STEPS = listKnob('PEER_CAP_STEPS', '500,1000,2000,3000,4000,5000', '200,500');
const STORED = knob('PEER_CAP_STORED', 100_000, 10_000);
const WINDOW_MS = knob('PEER_CAP_WINDOW_S', 20, 10) * 1000;
const WARMUP_MS = knob('PEER_CAP_WARMUP_S', 5) * 1000;
const P99_LIMIT_MS = knob('PEER_CAP_P99_MS', 1000);
const SETTLE_MS = 3_000;
const FILL_CONNECTIONS = 2;
const RETRY_FOR_MS = 120_000;
/** The PostgreSQL mode's target (issue #11), which issue #12 sets for peer mode too. */
const TARGET = goalById('federation-capacity').target;

function listKnob(name, full, quick) {
  const raw = process.env[`BENCH_${name}`] || (QUICK ? quick : full);
  const values = raw.split(',').map(Number);
  if (!values.every((value) => Number.isInteger(value) && value > 0))
    throw new Error(`BENCH_${name} must be a comma list of whole numbers, got "${raw}"`);
  return values;
}

const count = (value) => value.toLocaleString('en-US');

const shortfalls = (fires) => windowShortfalls(fires, P99_LIMIT_MS);

/**
 * Adds `total` jobs through `daemon`'s socket on FILL_CONNECTIONS connections, 64 in flight on each (more
 * in flight makes larger batches of the log; at 4 × 64 on a busy machine every create of the first burst
 * timed out, NO_QUORUM with all voters reachable, while 2 × 64 stored 178/s). Each create
 * carries its name as idempotency key, so one answered NO_QUORUM (a commit that timed out, every voter
 * reachable: seen for over 5 s on end between 60,000 and 90,000 jobs stored) is retried safely, a second apart, for up
 * to RETRY_FOR_MS; the retries are counted. A retry answered NAME_TAKEN means the timed-out attempt was
 * made after all, yet its idempotency key did not return it: counted too (`landed`), as made.
 * Returns the creates per second, the retries and those landed.
 */
async function addJobs(daemon, total, input) {
  const clients = await Promise.all(Array.from({ length: FILL_CONNECTIONS }, () => daemon.connect()));
  let retries = 0;
  let landed = 0;
  const add = async (client, job) => {
    const firstTry = Date.now();
    let retried = false;
    for (;;) {
      try {
        return await client.call('job.add', { input: job, idempotencyKey: job.name });
      } catch (error) {
        if (error.code === 'NAME_TAKEN' && retried) return (landed += 1);
        if (error.code !== 'NO_QUORUM' || Date.now() - firstTry > RETRY_FOR_MS) throw error;
        retried = true;
        retries += 1;
        await sleep(1_000);
      }
    }
  };
  try {
    const started = Date.now();
    let next = 0;
    await Promise.all(
      clients.map((client) =>
        pipelined(Math.ceil(total / clients.length), 64, () => {
          const index = next++;
          return index < total ? add(client, input(index)) : null;
        }),
      ),
    );
    return { perSecond: total / ((Date.now() - started) / 1000), retries, landed };
  } finally {
    for (const client of clients) client.close();
  }
}

/**
 * Meters the CPU of `daemons` and of this process (% of one core), and how busy the machine was, from now
 * until `stop()`, over the time that really passed (this process's timers may fire late).
 */
function meterCpu(daemons) {
  const meters = daemons.map((daemon) => cpuMeter(daemon.pid));
  const own = cpuMeter(process.pid);
  const machine = machineLoadMeter();
  const started = performance.now();
  return {
    stop: () => {
      const wallMs = performance.now() - started;
      return {
        seconds: wallMs / 1000,
        daemonsPct: meters.map((meter) => meter.stop(wallMs)),
        benchPct: own.stop(wallMs),
        machineBusyPct: machine.stop().machineBusyPct,
      };
    },
  };
}

/**
 * The window's CPU as cost per fire: microseconds of the daemons' CPU (all and per node) and of this
 * process's, and the fires/s at which they would take every core of this machine.
 */
function cpuPerFire(cpu, fires) {
  // A rate per fire needs fires, and every daemon's CPU (one that died in the window has none to read).
  if (fires.createdInWindow === 0 || !cpu.daemonsPct.every(Number.isFinite)) return cpu;
  const usPerFire = (pct) => ((pct / 100) * cpu.seconds * 1e6) / fires.createdInWindow;
  const daemonsUs = cpu.daemonsPct.reduce((sum, pct) => sum + usPerFire(pct), 0);
  const benchUs = usPerFire(cpu.benchPct);
  return {
    ...cpu,
    daemonsUsPerFire: daemonsUs,
    nodeUsPerFire: daemonsUs / cpu.daemonsPct.length,
    benchUsPerFire: benchUs,
    coresBoundPerSecond: (os.cpus().length * 1e6) / (daemonsUs + benchUs),
  };
}

function measureNodes(nodes, target) {
  return withPeerCluster({ count: nodes, label: `peercap-${nodes}` }, async (cluster) => {
    const steps = [];
    const settled = await untilSettled(cluster);
    const leader = cluster.daemons[cluster.ids.indexOf(settled.peers.leader)];
    progress(`${nodes} nodes: storing ${count(STORED)} jobs every 24h through the leader`);
    const stored = await addJobs(leader, STORED, (i) => ({
      name: `stored-${i}`,
      every: '24h',
      argv: ['true'],
    }));
    const storeRate = stored.perSecond;
    let retries = stored.retries;
    let landed = stored.landed;
    progress(
      `${nodes} nodes: stored at ${storeRate.toFixed(0)} jobs/s, ${retries} create(s) retried after NO_QUORUM, ${landed} then NAME_TAKEN`,
    );
    let firing = 0;
    for (const asked of STEPS) {
      // The leader's word, not every node's: a follower may lag far behind after 100,000 creates (a full run
      // saw one stuck at 52,954 jobs for minutes while the others had all), and the step measures anyway.
      const current = await until(
        'a leader with every shard assigned',
        async () => {
          const status = await statusOf(cluster.up()[0]);
          const leader = cluster.daemons[cluster.ids.indexOf(status.peers.leader)];
          const its = leader ? await statusOf(leader) : null;
          return its?.peers.leader === status.peers.leader && its.unassignedShards === 0
            ? its.peers.leader
            : null;
        },
        180_000,
      );
      const adder = cluster.daemons[cluster.ids.indexOf(current)];
      const from0 = firing;
      const added = await addJobs(adder, asked - firing, (i) => ({
        name: `tick-${from0 + i}`,
        every: '1s',
        http: target.url,
      }));
      retries += added.retries;
      landed += added.landed;
      firing = asked;
      const from = Date.now() + WARMUP_MS;
      const to = from + WINDOW_MS;
      progress(
        `${nodes} nodes, ${count(asked)} jobs every 1s: measuring ${WINDOW_MS / 1000} s after ${WARMUP_MS / 1000} s`,
      );
      await sleep(from - Date.now());
      const cpuOf = meterCpu(cluster.up());
      await sleep(to - Date.now());
      const cpu = cpuOf.stop();
      await sleep(to + SETTLE_MS - Date.now());
      // Every node's jobs, one set by id: a lagging node's database may lack the newest.
      const jobs = [
        ...new Map(
          cluster
            .up()
            .flatMap((daemon) => readEveryJobs(daemon.databasePath, 1_000).map((job) => [job.id, job])),
        ).values(),
      ];
      const fires = analyzeWindow(jobs, runsSince(cluster, from - 5_000), { from, to, intervalMs: 1_000 });
      const step = {
        nodes,
        asked,
        jobs: jobs.length,
        fires,
        cpu: cpuPerFire(cpu, fires),
        shortfalls: shortfalls(fires),
      };
      steps.push(step);
      progress(
        `${nodes} nodes, ${count(asked)} fires/s asked: ${fires.firesPerSecond.toFixed(0)} fired, p50 ${fires.latenessMs.p50} ms, ` +
          `p99 ${fires.latenessMs.p99} ms, missed ${fires.missed}, duplicates ${fires.duplicates}; ` +
          `${cpuNote(step.cpu)}; ` +
          (step.shortfalls.length ? `stops here: ${step.shortfalls.join(', ')}` : 'sustained'),
      );
      if (step.shortfalls.length) break;
    }
    return { nodes, storeRate, retries, landed, steps };
  });
}

const results = [];
let failed = null;
let target = null;
try {
  target = await startHttpTarget();
  for (const nodes of NODE_COUNTS) results.push(await measureNodes(nodes, target));
} catch (error) {
  failed = error;
} finally {
  await target?.close();
}

/** What a step's CPU says, for its progress line and its row. */
function cpuNote(cpu) {
  const pct = (value) => value.toFixed(0);
  const perFire =
    cpu.daemonsUsPerFire === undefined
      ? ''
      : `, ${cpu.daemonsUsPerFire.toFixed(0)} us a fire (${cpu.nodeUsPerFire.toFixed(0)} a node)`;
  const bound =
    cpu.coresBoundPerSecond === undefined
      ? ''
      : `; the cores would be spent at ${count(Math.round(cpu.coresBoundPerSecond))} fires/s`;
  return (
    `CPU: daemons ${cpu.daemonsPct.map(pct).join('/')} %${perFire}, ` +
    `endpoint ${pct(cpu.benchPct)} %, machine ${pct(cpu.machineBusyPct)} % busy${bound}`
  );
}

const rows = [];
for (const { nodes, storeRate, retries, landed, steps } of results) {
  for (const step of steps) {
    const { fires } = step;
    rows.push({
      benchmark: 'peer-capacity',
      scenario: `${nodes} nodes, ${count(STORED)} stored, ${count(step.asked)} jobs every 1 s`,
      n: fires.fired,
      rate: fires.firesPerSecond,
      rateUnit: 'fires/s',
      p50: fires.latenessMs.p50,
      p99: fires.latenessMs.p99,
      max: fires.latenessMs.max,
      notes:
        `asked ${count(step.asked)} fires/s; fired ${count(fires.fired)}/${count(fires.expected)} expected, missed ${count(fires.missed)}, ` +
        `duplicates ${fires.duplicates}, early ${fires.early}, per node ${fires.perNode.map((node) => count(node.runsInWindow)).join('/')}; ` +
        `${cpuNote(step.cpu)}; ` +
        (step.shortfalls.length ? `NOT sustained: ${step.shortfalls.join(', ')}` : 'sustained'),
      goals: { 'peer-capacity-duplicates': fires.duplicates },
    });
  }
  const sustained = steps.filter((step) => step.shortfalls.length === 0).at(-1);
  const limitReached = steps.length > 0 && steps.at(-1).shortfalls.length > 0;
  const highest = sustained?.asked ?? 0;
  rows.push({
    benchmark: 'peer-capacity',
    scenario: `${nodes} nodes: highest sustained`,
    n: sustained?.fires.fired,
    rate: sustained?.fires.firesPerSecond,
    rateUnit: 'fires/s',
    notes:
      `${sustained ? `the ${count(highest)} fires/s step` : 'none sustained'}; ` +
      (limitReached
        ? `the ${count(steps.at(-1).asked)} fires/s step was not`
        : 'every step was sustained (raise BENCH_PEER_CAP_STEPS)') +
      `; ${count(STORED)} jobs stored at ${storeRate.toFixed(0)} creates/s through the leader (${retries} create(s) answered NO_QUORUM, timed out, and retried; ${landed} of them then NAME_TAKEN: made, the idempotency key not honoured); target ${count(TARGET)} fires/s (the PostgreSQL mode's)`,
    goals: limitReached || highest >= TARGET ? { [`peer-capacity-${nodes}`]: highest } : undefined,
  });
}
if (results.length) {
  emitResult({
    benchmark: `peer mode capacity: ${NODE_COUNTS.join(' and ')} nodes, ${count(STORED)} jobs stored, jobs every 1 s raised until lateness p99 > ${P99_LIMIT_MS} ms, missed or duplicate fires`,
    rows,
    figures: {
      stored: STORED,
      windowMs: WINDOW_MS,
      warmupMs: WARMUP_MS,
      p99LimitMs: P99_LIMIT_MS,
      steps: STEPS,
      results: results.map((one) => ({
        ...one,
        steps: one.steps.map((step) => ({ ...step, fires: { ...step.fires, slices: undefined } })),
      })),
    },
  });
}
if (failed) reportFailure(failed);

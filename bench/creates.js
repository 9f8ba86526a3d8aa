// 1. Creates per second over the socket: `job.add` (every 1h, argv true, unique names) from one client
//    one at a time, from one client with up to 64 in flight, and from 8 client processes pipelining.
//    Each scenario gets a fresh daemon; latency is per request, from send to reply. A pipelined scenario
//    first runs one rep uncounted: a fresh daemon's first rep ran 10-20 % slower than the next ones while
//    taking more CPU, costs a daemon pays once after it starts (its code being optimised, its write-ahead
//    log growing to its working size), not on every create.
// Knobs: BENCH_CREATES_SEQ (creates per rep, sequential), BENCH_CREATES_PIPELINED (per rep, pipelined
//        and multi-client), BENCH_CREATES_DEPTH (64), BENCH_CREATES_CLIENTS (8),
//        BENCH_CREATES_CLIENT_DEPTH (8 each: the same 64 in flight in total as the one pipelined client).
import os from 'node:os';
import path from 'node:path';
import { REPS, knob } from './lib/config.js';
import { startCreateClients } from './lib/create-clients.js';
import { createJobs } from './lib/create-jobs.js';
import { startDaemon } from './lib/daemon.js';
import { goalById } from './lib/goals.js';
import { makeTempDir, removeTempDir } from './lib/processes.js';
import { rawGroupCommit, rowsOfOneCreate } from './lib/raw-group-commit.js';
import { cpuMeter } from './lib/process-cpu.js';
import { startSocketFloor } from './lib/socket-floor.js';
import { emitResult, progress } from './lib/report.js';
import { median, medianOfReps, summarize } from './lib/stats.js';

const SEQUENTIAL = knob('CREATES_SEQ', 2_000, 300);
const PIPELINED = knob('CREATES_PIPELINED', 10_000, 1_000);
const DEPTH = knob('CREATES_DEPTH', 64);
const CLIENTS = knob('CREATES_CLIENTS', 8);
const CLIENT_DEPTH = knob('CREATES_CLIENT_DEPTH', 8);
const WARMUP = 200;

/** One client in this process; `depth` 1 is strictly sequential. */
async function oneClient(daemon, { count, depth }) {
  const client = await daemon.connect();
  await createJobs(client, { count: WARMUP, depth: 1, prefix: 'warm' });
  if (depth > 1) await createJobs(client, { count, depth, prefix: 'warm-rep' });
  const reps = [];
  for (let rep = 0; rep < REPS; rep++) {
    const cpu = cpuMeter(daemon.pid);
    const { latenciesMs, elapsedMs } = await createJobs(client, { count, depth, prefix: `r${rep}` });
    reps.push(repFigures(latenciesMs, elapsedMs, cpu.stop(elapsedMs)));
  }
  client.close();
  return reps;
}

/**
 * `clients` forked processes, each with its own connection; the wall time spans all of them. `daemon` is
 * anything with a socket and a pid: a daemon, or the socket's floor.
 */
async function manyClients(daemon, { count, clients, depth }) {
  const workers = await startCreateClients(daemon, { clients, warmup: WARMUP / 4 });
  await workers.run({ count, depth, prefix: 'warm-rep' });
  const reps = [];
  for (let rep = 0; rep < REPS; rep++) {
    const cpu = cpuMeter(daemon.pid);
    const clientsCpu = workers.pids.map(cpuMeter);
    const { latenciesMs, elapsedMs } = await workers.run({ count, depth, prefix: `r${rep}` });
    const figures = repFigures(latenciesMs, elapsedMs, cpu.stop(elapsedMs));
    figures.clientsCpuPct = clientsCpu.reduce((sum, meter) => sum + meter.stop(elapsedMs), 0);
    reps.push(figures);
  }
  await workers.close();
  return reps;
}

function repFigures(latenciesMs, elapsedMs, daemonCpuPct) {
  const latency = summarize(latenciesMs);
  return {
    creates: latency.n,
    jobsPerSec: latency.n / (elapsedMs / 1000),
    p50: latency.p50,
    p99: latency.p99,
    max: latency.max,
    daemonCpuPct,
  };
}

const scenarios = [
  { name: '1 client, sequential', run: (daemon) => oneClient(daemon, { count: SEQUENTIAL, depth: 1 }) },
  {
    name: `1 client, ${DEPTH} in flight`,
    run: (daemon) => oneClient(daemon, { count: PIPELINED, depth: DEPTH }),
  },
  {
    name: `${CLIENTS} client processes × ${CLIENT_DEPTH} in flight`,
    run: (daemon) => manyClients(daemon, { count: PIPELINED, clients: CLIENTS, depth: CLIENT_DEPTH }),
    goal: 'creates-8-clients',
  },
];

const rows = [];
const figures = {};
/** The rows of one create by the 8-client scenario's daemon, for the raw group commit to copy. */
let template;
/** What that daemon answered a create with: the socket's floor answers every request with it. */
let createResult;
for (const scenario of scenarios) {
  progress(`creates: ${scenario.name}`);
  const daemon = await startDaemon({ label: 'creates' });
  try {
    const reps = await scenario.run(daemon);
    const median = medianOfReps(reps);
    figures[scenario.name] = { median, reps };
    rows.push({
      benchmark: 'creates (job.add)',
      scenario: scenario.name,
      n: median.creates,
      rate: median.jobsPerSec,
      rateUnit: 'jobs/s',
      p50: median.p50,
      p99: median.p99,
      max: median.max,
      notes: `median of ${reps.length}; daemon CPU ${Math.round(median.daemonCpuPct)}% of a core`,
      goals: scenario.goal ? { [scenario.goal]: median.jobsPerSec } : undefined,
    });
    if (scenario.goal === 'creates-8-clients') {
      const client = await daemon.connect();
      createResult = await client.call('job.add', {
        input: { name: 'floor-reply', every: '1h', argv: ['true'] },
      });
      client.close();
      template = rowsOfOneCreate(daemon.databasePath);
    }
  } finally {
    await daemon.dispose();
  }
}

// The floor: the same rows through SQLite alone, in commits as large as the 8 clients' creates in flight,
// on a table grown the same way (warm-up, then the same rounds).
const perCommit = CLIENTS * CLIENT_DEPTH;
progress(`creates: raw group commit, ${perCommit} creates' rows a commit`);
const rawDir = makeTempDir('raw-commit');
let rawRounds;
try {
  rawRounds = rawGroupCommit(template, {
    file: path.join(rawDir, 'raw.db'),
    // As many as the 8 clients' daemon held before its first counted rep: its warm-up and uncounted rep.
    warmup: WARMUP + PIPELINED,
    rounds: REPS,
    perRound: PIPELINED,
    perCommit,
  });
} finally {
  removeTempDir(rawDir);
}
const rawRate = median(rawRounds.map((round) => round.rate));
const rawCpuMicros = median(rawRounds.map((round) => round.cpuMicrosPerCreate));
const manyClientsRow = rows.find((row) => row.goals?.['creates-8-clients'] !== undefined);
const ofRaw = (manyClientsRow.rate / rawRate) * 100;
manyClientsRow.goals['creates-vs-group-commit'] = ofRaw;
manyClientsRow.notes += `; ${Math.round(ofRaw)}% of the raw group commit`;
figures.rawGroupCommit = { perCommit, rounds: rawRounds };
rows.push({
  benchmark: 'creates (job.add)',
  scenario: `raw group commit: a create's rows straight into SQLite, ${perCommit} a commit`,
  n: PIPELINED,
  rate: rawRate,
  rateUnit: 'jobs/s',
  notes: `median of ${rawRounds.length}; job, audit and event rows, the daemon's schema and settings; ${micros(1e6 / rawRate)} a create, ${micros(rawCpuMicros)} of it CPU`,
});

// The other floor: the daemon's transport answering at once, to the same clients, with the same reply.
progress(`creates: the socket's floor, ${CLIENTS} client processes × ${CLIENT_DEPTH} in flight`);
const floor = await startSocketFloor(createResult);
let floorReps;
try {
  floorReps = await manyClients(floor, { count: PIPELINED, clients: CLIENTS, depth: CLIENT_DEPTH });
} finally {
  await floor.dispose();
}
const floorMedian = medianOfReps(floorReps);
const daemonMedian = figures[scenarios.find((scenario) => scenario.goal).name].median;
const perCreate = (cpuPct, rate) => ((cpuPct / 100) * 1e6) / rate;
const share = {
  daemonMicros: perCreate(daemonMedian.daemonCpuPct, daemonMedian.jobsPerSec),
  socketMicros: perCreate(floorMedian.daemonCpuPct, floorMedian.jobsPerSec),
  clientsMicros: perCreate(floorMedian.clientsCpuPct, floorMedian.jobsPerSec),
  rawMicros: 1e6 / rawRate,
  rawCpuMicros,
};
// One thread that only moved the bytes and committed the rows would still spend both on every create.
share.oneThreadCeiling = 1e6 / (share.socketMicros + share.rawMicros);
// At the goal's rate one thread has 1 / rate a create: what the floors leave of it for the daemon's own
// work (checking, building, auditing), against what that work takes now.
const goalRate = (goalById('creates-vs-group-commit').target / 100) * rawRate;
share.ownMicros = share.daemonMicros - share.socketMicros - share.rawMicros;
share.ownMicrosLeftAtGoal = 1e6 / goalRate - share.socketMicros - share.rawMicros;
// And what the goal's rate would take of this machine's cores with nothing but the floors' work in the daemon.
share.coresAtGoal = (goalRate * (share.clientsMicros + share.socketMicros + share.rawCpuMicros)) / 1e6;
figures.socketFloor = { median: floorMedian, reps: floorReps, share };
rows.push({
  benchmark: 'creates (job.add)',
  scenario: `the socket's floor: ${CLIENTS} client processes × ${CLIENT_DEPTH} in flight answered by the daemon's transport alone`,
  n: floorMedian.creates,
  rate: floorMedian.jobsPerSec,
  rateUnit: 'jobs/s',
  p50: floorMedian.p50,
  p99: floorMedian.p99,
  max: floorMedian.max,
  notes:
    `median of ${floorReps.length}; ${micros(share.socketMicros)} of CPU a request, the clients ${micros(share.clientsMicros)}. ` +
    `The daemon spent ${micros(share.daemonMicros)} a create: ${micros(share.socketMicros)} is the socket's, ` +
    `${micros(share.rawMicros)} the raw commit's, so one thread doing only those two tops out at ` +
    `${Math.round(share.oneThreadCeiling).toLocaleString('en-US')}/s (${Math.round((share.oneThreadCeiling / rawRate) * 100)}% of raw), ` +
    `and its own work took ${micros(share.ownMicros)}. At ${Math.round(goalRate).toLocaleString('en-US')}/s (the goal) one thread ` +
    `has ${micros(1e6 / goalRate)} a create: the two floors leave ${micros(share.ownMicrosLeftAtGoal)} for its own work; ` +
    `clients, socket and commit alone would take ${share.coresAtGoal.toFixed(2)} of this machine's ${os.cpus().length} cores`,
});
emitResult({ benchmark: 'creates (job.add) over the socket', rows, figures });

function micros(value) {
  return `${Math.round(value)} µs`;
}

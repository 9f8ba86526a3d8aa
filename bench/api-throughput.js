// 14. The HTTPS API (issue #14) beside the socket, on one daemon in one run, with the same job shape as
//     creates.js (every 1h, argv true, unique names) and an admin caller on both paths:
//     - creates/s from 8 keep-alive connections, one request in flight on each: an undici Pool of 8
//       connections over HTTPS, and 8 socket connections; the repetitions alternate which path goes first;
//     - get by name (`GET /v1/jobs/NAME?upcoming=0` and `job.get`), one at a time, p50/p99;
//     - Server-Sent Events: a stream of `job:created` from `/v1/events` while creates are sent over the
//       socket at a paced 1,000/s; each event's latency is from the moment its create was sent to its
//       arrival on the stream (and, beside it, from the event's own `at`, the daemon's clock at the commit);
//     - the daemon's CPU time per request on each path (user + system, all its threads, over each phase).
// Knobs: BENCH_API_CREATES (per rep and path, 10000; quick 2000), BENCH_API_CONNECTIONS (8),
//        BENCH_API_GETS (per rep and path, 3000; quick 500), BENCH_API_EVENT_RATE (1000 per second),
//        BENCH_API_EVENT_SECONDS (10; quick 3). BENCH_DAEMON_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR'
//        profiles the daemon (lib/daemon.js).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, Pool } from 'undici';
import { startApiDaemon } from './lib/api-daemon.js';
import { REPS, knob } from './lib/config.js';
import { pipelined } from './lib/pipeline.js';
import { cpuSeconds } from './lib/process-cpu.js';
import { emitResult, progress } from './lib/report.js';
import { openEventStream } from './lib/sse-stream.js';
import { medianOfReps, summarize } from './lib/stats.js';

const CREATES = knob('API_CREATES', 10_000, 2_000);
const CONNECTIONS = knob('API_CONNECTIONS', 8);
const GETS = knob('API_GETS', 3_000, 500);
const EVENT_RATE = knob('API_EVENT_RATE', 1_000);
const EVENT_SECONDS = knob('API_EVENT_SECONDS', 10, 3);
const WARMUP = 500;
const GOAL = 'api-creates-8-connections';

const jobInput = (name) => ({ name, every: '1h', argv: ['true'] });

/** The two paths, each able to create and get: the same requests, over HTTPS or over the socket. */
async function openPaths(daemon, api) {
  const pool = new Pool(api.origin, { connections: CONNECTIONS, connect: { ca: api.ca } });
  const headers = { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' };
  const expectStatus = async (answer, status) => {
    const text = await answer.body.text();
    if (answer.statusCode !== status) throw new Error(`HTTPS ${answer.statusCode}: ${text}`);
  };
  const sockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => daemon.connect()));
  return {
    https: {
      name: 'HTTPS',
      create: async (name) =>
        expectStatus(
          await pool.request({
            path: '/v1/jobs',
            method: 'POST',
            headers,
            body: JSON.stringify({ input: jobInput(name) }),
          }),
          201,
        ),
      get: async (name) =>
        expectStatus(
          await pool.request({ path: `/v1/jobs/${name}?upcoming=0`, method: 'GET', headers }),
          200,
        ),
    },
    socket: {
      name: 'socket',
      // Request i goes on connection i mod 8; with 8 in flight, each connection has one.
      create: (name, i) => sockets[i % CONNECTIONS].call('job.add', { input: jobInput(name) }),
      get: (name, i) => sockets[i % CONNECTIONS].call('job.get', { ref: name, upcoming: 0 }),
    },
    close: async () => {
      for (const socket of sockets) socket.close();
      await pool.close();
    },
  };
}

/**
 * `count` requests of one kind on one path, `depth` in flight: rate, latency, and the CPU per request of the
 * daemon and of this client (on a machine of two cores, the client's share is what the daemon cannot have).
 */
async function measure(daemon, count, depth, send) {
  const cpuBefore = cpuSeconds(daemon.pid);
  const clientBefore = process.cpuUsage();
  const { latenciesMs, elapsedMs } = await pipelined(count, depth, send);
  const cpuUs = ((cpuSeconds(daemon.pid) - cpuBefore) / count) * 1e6;
  const client = process.cpuUsage(clientBefore);
  const clientCpuUs = (client.user + client.system) / count;
  return { ...summarize(latenciesMs), perSec: latenciesMs.length / (elapsedMs / 1000), cpuUs, clientCpuUs };
}

/** Deterministic names among those created, spread over all of them (a small LCG, as get-latency.js). */
function lookupOrder(count, names) {
  let seed = 12345;
  return Array.from({ length: count }, () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return names[seed % names.length];
  });
}

/** Creates over the socket at a paced rate while an SSE stream over HTTPS reads their job:created events. */
async function measureEvents(api, paths) {
  const dispatcher = new Agent({ connect: { ca: api.ca } });
  const sentAt = new Map();
  const fromSend = [];
  const fromAt = [];
  const stream = await openEventStream(`${api.origin}/v1/events?types=job:created`, {
    token: api.token,
    dispatcher,
    now: () => performance.now(),
    onEvent: (event, arrivedAt) => {
      const sent = sentAt.get(event.data?.name);
      if (sent === undefined) return;
      sentAt.delete(event.data.name);
      fromSend.push(arrivedAt - sent);
      fromAt.push(Date.now() - (performance.now() - arrivedAt) - event.at);
    },
  });
  const total = EVENT_RATE * EVENT_SECONDS;
  const started = performance.now();
  const creates = [];
  for (let i = 0; i < total;) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * EVENT_RATE) + 1);
    for (; i < due; i++) {
      const name = `sse-${i}`;
      sentAt.set(name, performance.now());
      creates.push(paths.socket.create(name, i));
    }
    await sleep(1);
  }
  const pacedSeconds = (performance.now() - started) / 1000;
  await Promise.all(creates);
  const deadline = performance.now() + 5_000;
  while (sentAt.size > 0 && performance.now() < deadline) await sleep(20);
  await stream.close();
  await dispatcher.close();
  return {
    total,
    pacedSeconds,
    missing: sentAt.size,
    fromSend: summarize(fromSend),
    fromAt: summarize(fromAt),
  };
}

const rows = [];
const figures = {};
progress('api throughput: starting a daemon with the HTTPS API');
const { daemon, api } = await startApiDaemon({ label: 'api' });
try {
  const paths = await openPaths(daemon, api);
  const order = [paths.https, paths.socket];
  for (const path of order)
    await pipelined(WARMUP, CONNECTIONS, (i) => path.create(`warm-${path.name}-${i}`, i));
  const created = { HTTPS: [], socket: [] };
  const reps = { create: { HTTPS: [], socket: [] }, get: { HTTPS: [], socket: [] } };
  for (let rep = 0; rep < REPS; rep++) {
    for (const path of rep % 2 === 0 ? order : [...order].reverse()) {
      progress(`api throughput: rep ${rep + 1}, ${CREATES} creates over ${path.name}`);
      const names = Array.from({ length: CREATES }, (_, i) => `r${rep}-${path.name}-${i}`);
      reps.create[path.name].push(
        await measure(daemon, CREATES, CONNECTIONS, (i) => path.create(names[i], i)),
      );
      created[path.name].push(...names);
    }
  }
  const allNames = [...created.HTTPS, ...created.socket];
  for (let rep = 0; rep < REPS; rep++) {
    for (const path of rep % 2 === 0 ? order : [...order].reverse()) {
      progress(`api throughput: rep ${rep + 1}, ${GETS} gets over ${path.name}`);
      const names = lookupOrder(GETS, allNames);
      reps.get[path.name].push(await measure(daemon, GETS, 1, (i) => path.get(names[i], i)));
    }
  }
  progress(`api throughput: SSE, creates paced at ${EVENT_RATE}/s for ${EVENT_SECONDS} s`);
  const events = await measureEvents(api, paths);
  await paths.close();

  const median = (kind, path) => medianOfReps(reps[kind][path]);
  const [httpsCreate, socketCreate, httpsGet, socketGet] = [
    median('create', 'HTTPS'),
    median('create', 'socket'),
    median('get', 'HTTPS'),
    median('get', 'socket'),
  ];
  const share = (httpsCreate.perSec / socketCreate.perSec) * 100;
  figures.creates = { https: reps.create.HTTPS, socket: reps.create.socket, shareOfSocketPct: share };
  figures.gets = { https: reps.get.HTTPS, socket: reps.get.socket, storedJobs: allNames.length };
  figures.events = events;
  const cpu = (figure) =>
    `daemon CPU ${Math.round(figure.cpuUs)} µs a request, the client's ${Math.round(figure.clientCpuUs)} µs`;
  rows.push(
    {
      benchmark: 'api creates (POST /v1/jobs)',
      scenario: `HTTPS, keep-alive, ${CONNECTIONS} connections × 1 in flight`,
      n: httpsCreate.n,
      rate: httpsCreate.perSec,
      rateUnit: 'jobs/s',
      p50: httpsCreate.p50,
      p99: httpsCreate.p99,
      max: httpsCreate.max,
      notes: `median of ${REPS}; ${Math.round(share)}% of the socket path's rate in the same run; ${cpu(httpsCreate)}`,
      goals: { [GOAL]: httpsCreate.perSec },
    },
    {
      benchmark: 'api creates (job.add)',
      scenario: `socket, ${CONNECTIONS} connections × 1 in flight (same run)`,
      n: socketCreate.n,
      rate: socketCreate.perSec,
      rateUnit: 'jobs/s',
      p50: socketCreate.p50,
      p99: socketCreate.p99,
      max: socketCreate.max,
      notes: `median of ${REPS}; ${cpu(socketCreate)}`,
    },
    {
      benchmark: 'api get (GET /v1/jobs/NAME)',
      scenario: `HTTPS, sequential, ${allNames.length.toLocaleString('en-US')} jobs stored`,
      n: httpsGet.n,
      rate: httpsGet.perSec,
      rateUnit: 'req/s',
      p50: httpsGet.p50,
      p99: httpsGet.p99,
      max: httpsGet.max,
      notes: `median of ${REPS}; ${cpu(httpsGet)}`,
    },
    {
      benchmark: 'api get (job.get)',
      scenario: 'socket, sequential (same run)',
      n: socketGet.n,
      rate: socketGet.perSec,
      rateUnit: 'req/s',
      p50: socketGet.p50,
      p99: socketGet.p99,
      max: socketGet.max,
      notes: `median of ${REPS}; ${cpu(socketGet)}`,
    },
    {
      benchmark: 'api events (SSE /v1/events)',
      scenario: `job:created of creates paced at ${EVENT_RATE.toLocaleString('en-US')}/s over the socket, from the create sent`,
      n: events.fromSend.n,
      rate: events.fromSend.n / events.pacedSeconds,
      rateUnit: 'events/s',
      p50: events.fromSend.p50,
      p99: events.fromSend.p99,
      max: events.fromSend.max,
      notes:
        `from the event's own at: p50 ${events.fromAt.p50.toFixed(2)} ms, p99 ${events.fromAt.p99.toFixed(2)} ms; ` +
        `${events.missing} of ${events.total} never arrived`,
    },
  );
} finally {
  await daemon.dispose();
}
emitResult({
  benchmark: 'the HTTPS API beside the socket: creates, gets and Server-Sent Events',
  rows,
  figures,
});

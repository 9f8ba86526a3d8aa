// Concurrent children (issue #17 item 4): N command jobs due at one and the same instant, each `sleep S`,
//     so that all of them can be alive at once (the original design's 5,000 concurrent executions), on one
//     daemon with its default `max_children` (as many as the open-file limit has room for, 5,000 at most).
//     Every 100 ms from the instant: the children alive under the daemon's spawner (from /proc), the
//     machine's available memory, the daemon's and the spawner's RSS. Then, from the daemon's database once
//     it stopped: each command's start after the instant (run.startedAt − instant: its child's start, after
//     any wait for a slot), how each run ended, and the lateness of HTTP probes due meanwhile (20 a second
//     over the first 10 s), which says whether spawning thousands of children holds up firing.
// Knobs: BENCH_CHILDREN (5000; quick 500), BENCH_CHILDREN_SLEEP_S (20; quick 8).
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { childSlots } from '../dist/core/child-slots.js';
import { openFileLimit } from '../dist/daemon/executor/open-file-limit.js';
import { knob } from './lib/config.js';
import { startDaemon } from './lib/daemon.js';
import { analyzeFires, fireNotes } from './lib/fires.js';
import { startHttpTarget } from './lib/http-target.js';
import { childPids } from './lib/process-children.js';
import { rssMb } from './lib/process-memory.js';
import { addProbeJobs, probeInstants } from './lib/probes.js';
import { emitResult, progress } from './lib/report.js';
import { readRuns } from './lib/runs-db.js';
import { summarize } from './lib/stats.js';

const CHILDREN = knob('CHILDREN', 5_000, 500);
const SLEEP_S = knob('CHILDREN_SLEEP_S', 20, 8);
const PROBES_PER_SECOND = 20;
const PROBE_WINDOW_MS = 10_000;
const SAMPLE_EVERY_MS = 100;
/** From the last create to the instant. */
const LEAD_MS = 3_000;

const count = (value) => value.toLocaleString('en-US');

/** MemAvailable in MiB: what the machine could still give without swapping. */
function availableMemoryMib() {
  const match = fs.readFileSync('/proc/meminfo', 'utf8').match(/^MemAvailable:\s+(\d+) kB/m);
  return Number(match[1]) / 1024;
}

/** The daemon's spawner process (spawn-worker.js), which every command child is a child of. */
function spawnerOf(daemonPid) {
  const spawner = childPids(daemonPid).find((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('spawn-worker');
    } catch {
      return false;
    }
  });
  if (spawner === undefined) throw new Error(`no spawner under daemon ${daemonPid}`);
  return spawner;
}

/**
 * Samples until every child has ended after the peak, and `notBeforeMs` has passed (or until `untilMs`): the alive count each time, the
 * highest, when it first reached `target`, and the memory taken at the peak.
 */
async function sampleChildren({ daemonPid, spawnerPid, instant, target, notBeforeMs, untilMs }) {
  const memoryBefore = availableMemoryMib();
  const timeline = [];
  const peak = { alive: 0, atMs: NaN, memoryTakenMib: 0 };
  let reachedTargetMs = NaN;
  let daemonRssMb = 0;
  let spawnerRssMb = 0;
  while (Date.now() < untilMs) {
    const alive = childPids(spawnerPid).length;
    const sinceInstant = Date.now() - instant;
    timeline.push([sinceInstant, alive]);
    if (alive > peak.alive) {
      peak.alive = alive;
      peak.atMs = sinceInstant;
      peak.memoryTakenMib = memoryBefore - availableMemoryMib();
    }
    if (alive >= target && Number.isNaN(reachedTargetMs)) reachedTargetMs = sinceInstant;
    daemonRssMb = Math.max(daemonRssMb, rssMb(daemonPid));
    spawnerRssMb = Math.max(spawnerRssMb, rssMb(spawnerPid));
    if (peak.alive > 0 && alive === 0 && Date.now() >= notBeforeMs) break;
    await sleep(SAMPLE_EVERY_MS);
  }
  return { timeline, peak, reachedTargetMs, daemonRssMb, spawnerRssMb };
}

const limit = openFileLimit();
const { maxChildren } = childSlots(limit, null);
const target = await startHttpTarget();
const daemon = await startDaemon({ label: 'children' });
let sampled;
let runs;
let instant;
let longJobs;
let probeExpected;
try {
  const spawnerPid = spawnerOf(daemon.pid);
  const client = await daemon.connect();
  instant = Math.ceil((Date.now() + LEAD_MS + CHILDREN) / 1000) * 1000;
  progress(
    `concurrent children: ${count(CHILDREN)} × sleep ${SLEEP_S} due at ${new Date(instant).toISOString()} ` +
      `(max_children ${count(maxChildren)}, open-file limit ${limit === null ? 'none' : count(limit)})`,
  );
  const long = await addProbeJobs(client, new Array(CHILDREN).fill(instant), {
    prefix: 'long',
    target: { argv: ['sleep', String(SLEEP_S)] },
  });
  longJobs = new Set(long.expected.map((fire) => fire.jobId));
  const probes = await addProbeJobs(
    client,
    probeInstants(instant, (PROBES_PER_SECOND * PROBE_WINDOW_MS) / 1000, PROBE_WINDOW_MS),
    { prefix: 'probe', target: { http: target.url } },
  );
  probeExpected = probes.expected;
  if (Date.now() >= instant) throw new Error('creating the jobs took past their instant');
  await sleep(instant - 1_000 - Date.now());
  // Every child could wait for a slot once: the commands beyond max_children start as others end.
  const rounds = Math.ceil(CHILDREN / maxChildren);
  sampled = await sampleChildren({
    daemonPid: daemon.pid,
    spawnerPid,
    instant,
    target: Math.min(CHILDREN, maxChildren),
    // The probes' last instant, and room for its run to be recorded.
    notBeforeMs: instant + PROBE_WINDOW_MS + 2_000,
    untilMs: instant + rounds * (SLEEP_S * 1000 + CHILDREN * 10) + 30_000,
  });
  while ((await client.call('daemon.status', {})).runningRuns > 0) await sleep(200);
  client.close();
  await daemon.stop();
  runs = readRuns(daemon.databasePath);
} finally {
  await daemon.dispose();
  await target.close();
}

const longRuns = runs.filter((run) => longJobs.has(run.jobId));
const states = {};
for (const run of longRuns) states[run.state] = (states[run.state] ?? 0) + 1;
const startLag = summarize(
  longRuns.filter((run) => run.startedAt !== null).map((run) => run.startedAt - instant),
);
const probeFires = analyzeFires(probeExpected, runs);
const probeIds = new Set(probeExpected.map((fire) => fire.jobId));
/** The latest probe of each second of the window: whether the lateness is the burst's fire or the spawning after it. */
const probeLatestBySecond = [];
for (const run of runs.filter((candidate) => probeIds.has(candidate.jobId))) {
  const second = Math.floor((run.scheduledFor - instant) / 1000);
  probeLatestBySecond[second] = Math.max(probeLatestBySecond[second] ?? 0, run.createdAt - run.scheduledFor);
}
const { peak, reachedTargetMs } = sampled;
const spawnRate = Number.isFinite(reachedTargetMs)
  ? Math.min(CHILDREN, maxChildren) / (reachedTargetMs / 1000)
  : NaN;
const perChildKib = (peak.memoryTakenMib * 1024) / peak.alive;
const bySecond = [];
for (const [atMs, alive] of sampled.timeline) {
  const second = Math.floor(atMs / 1000);
  if (second >= 0) bySecond[second] = Math.max(bySecond[second] ?? 0, alive);
}
emitResult({
  benchmark: `concurrent children: ${count(CHILDREN)} commands (sleep ${SLEEP_S}) due at one instant`,
  rows: [
    {
      benchmark: 'concurrent children',
      scenario: `${count(CHILDREN)} × sleep ${SLEEP_S} due at one instant: started after it`,
      n: longRuns.length,
      rate: spawnRate,
      rateUnit: 'spawns/s',
      p50: startLag.p50,
      p99: startLag.p99,
      max: startLag.max,
      notes:
        `at most ${count(peak.alive)} alive at once (max_children ${count(maxChildren)}, open-file limit ` +
        `${limit === null ? 'none' : count(limit)}), ${Number.isFinite(reachedTargetMs) ? `all of them ${(reachedTargetMs / 1000).toFixed(1)} s after the instant` : 'never all of them'}; ` +
        `ended: ${Object.entries(states)
          .map(([state, n]) => `${count(n)} ${state}`)
          .join(', ')}; ` +
        `memory taken at the peak ${Math.round(peak.memoryTakenMib)} MiB, ${Math.round(perChildKib)} KiB a child; ` +
        `RSS daemon ${Math.round(sampled.daemonRssMb)} MB, spawner ${Math.round(sampled.spawnerRssMb)} MB`,
    },
    {
      benchmark: 'concurrent children',
      scenario: `probes meanwhile: ${PROBES_PER_SECOND} HTTP jobs a second over the first ${PROBE_WINDOW_MS / 1000} s, lateness`,
      n: probeFires.fired,
      p50: probeFires.latenessMs.p50,
      p99: probeFires.latenessMs.p99,
      max: probeFires.latenessMs.max,
      notes: `${fireNotes(probeFires)}; the latest of each second: ${probeLatestBySecond.join(', ')} ms`,
    },
  ],
  figures: {
    children: CHILDREN,
    sleepSeconds: SLEEP_S,
    maxChildren,
    openFileLimit: limit,
    peak,
    reachedTargetMs,
    spawnRate,
    states,
    startLag,
    aliveBySecond: bySecond,
    daemonRssMb: sampled.daemonRssMb,
    spawnerRssMb: sampled.spawnerRssMb,
    probes: probeFires,
    probeLatestBySecond,
  },
});

// 3. Firing lateness against store size. A store holds N jobs due far in the future (every 24h, written
//    straight into the store before the daemon starts); then ~1,000 probe `at` jobs, each due at its
//    own instant over the next ~15 s and running `true`, are created over the socket. After the last
//    one is due the daemon is stopped and the runs are read from its database: lateness is
//    run.createdAt − run.scheduledFor. Nothing may fire early and every instant must fire.
// Knobs: BENCH_FIRING_JOBS (comma list of store sizes, default 1000,100000), BENCH_PROBES (1000),
//        BENCH_PROBE_SPREAD_MS (15000).
import { setTimeout as sleep } from 'node:timers/promises';
import { QUICK, knob } from './lib/config.js';
import { startDaemon } from './lib/daemon.js';
import { analyzeFires, fireNotes } from './lib/fires.js';
import { addProbeJobs, probeInstants } from './lib/probes.js';
import { makeTempDir } from './lib/processes.js';
import { emitResult, progress } from './lib/report.js';
import { readRuns } from './lib/runs-db.js';
import { farFutureJobs, writeJobs } from './lib/store-fill.js';

const STORE_SIZES = (process.env.BENCH_FIRING_JOBS ?? (QUICK ? '1000,10000' : '1000,100000'))
  .split(',')
  .map(Number);
const PROBES = knob('PROBES', 1_000, 300);
const SPREAD_MS = knob('PROBE_SPREAD_MS', 15_000, 5_000);
/** Time to create the probes before the first is due (1,000 pipelined creates take well under 1 s). */
const LEAD_MS = 2_500;
/** After the last instant, before stopping: room for late fires to show up as late, not as missed. */
const SETTLE_MS = 2_000;

async function measure(storeSize) {
  const home = makeTempDir('firing');
  progress(`firing lateness: filling a store with ${storeSize} far-future jobs`);
  const fill = await writeJobs(`${home}/sched.db`, farFutureJobs(storeSize, 'far'));
  const daemon = await startDaemon({ label: 'firing', home });
  try {
    const client = await daemon.connect();
    const instants = probeInstants(Date.now() + LEAD_MS, PROBES, SPREAD_MS);
    progress(`firing lateness: ${PROBES} probes due over ${SPREAD_MS / 1000} s`);
    const { expected, createMs } = await addProbeJobs(client, instants, { prefix: 'probe' });
    client.close();
    if (Date.now() >= instants[0])
      throw new Error(`creating the probes took ${createMs} ms, past the first one`);
    await sleep(instants[instants.length - 1] + SETTLE_MS - Date.now());
    await daemon.stop();
    const fires = analyzeFires(expected, readRuns(daemon.databasePath));
    return { storeSize, fires, fillMs: fill.writeMs, daemonStartMs: daemon.startMs, probeCreateMs: createMs };
  } finally {
    await daemon.dispose();
  }
}

const rows = [];
const figures = {};
for (const storeSize of STORE_SIZES) {
  const result = await measure(storeSize);
  figures[`${storeSize} jobs`] = result;
  const { fires } = result;
  rows.push({
    benchmark: 'firing lateness',
    scenario: `${storeSize.toLocaleString('en-US')} far-future jobs + ${PROBES.toLocaleString('en-US')} probes`,
    n: fires.fired,
    p50: fires.latenessMs.p50,
    p99: fires.latenessMs.p99,
    max: fires.latenessMs.max,
    notes: fireNotes(fires),
    goals: { 'firing-p99': fires.latenessMs.p99, 'firing-early': fires.early },
  });
}
emitResult({ benchmark: 'firing lateness (run.createdAt − scheduledFor) by store size', rows, figures });

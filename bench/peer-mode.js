// 14. Peer mode (issue #12): three daemons on loopback keeping one Raft log among themselves, no database
//     server. Each daemon has its own SCHED_HOME; they share a cluster key (`sched cluster keygen`) and a
//     secret key (made by one daemon started alone first, then copied), and start together (a write needs a
//     majority). Once they agree on a leader and a shard map:
//     - creates through a follower: BENCH_PEER_JOBS `every 1s` jobs running `true`, 8 in flight over its
//       socket; each is forwarded to the leader, committed by a majority and applied where it was made
//       before it is answered. Throughput and latency per create;
//     - steady firing: a window of BENCH_PEER_WINDOW_S seconds; from a survivor's database afterwards,
//       fires/s, lateness (run.createdAt − scheduledFor), missed and duplicated instants;
//     - failover: the leader is killed -9 after the window; time until another daemon reports a new leader
//       and a map without it, and, for each job the killed daemon fired, how long after the kill its first
//       instant was fired by another node (the instants between are recorded missed per `--misfire`).
// Knobs: BENCH_PEER_JOBS (100; quick 30), BENCH_PEER_WINDOW_S (20; quick 8), BENCH_PEER_AFTER_S (seconds
//        watched after the kill, 20).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { knob } from './lib/config.js';
import { startDaemon } from './lib/daemon.js';
import { freePort } from './lib/free-port.js';
import { SCHED_BIN } from './lib/paths.js';
import { pipelined } from './lib/pipeline.js';
import { makeTempDir, removeTempDir } from './lib/processes.js';
import { emitResult, progress } from './lib/report.js';
import { readRuns } from './lib/runs-db.js';
import { summarize } from './lib/stats.js';

const JOBS = knob('PEER_JOBS', 100, 30);
const WINDOW_MS = knob('PEER_WINDOW_S', 20, 8) * 1000;
const AFTER_MS = knob('PEER_AFTER_S', 20) * 1000;

const round = (value) => (Number.isFinite(value) ? Math.round(value * 10) / 10 : value);

/** Polls `probe` every 100 ms until it returns something, for at most `timeoutMs`. */
async function until(what, probe, timeoutMs = 60_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function statusOf(daemon) {
  const client = await daemon.connect();
  try {
    return await client.call('cluster.status', {});
  } finally {
    client.close();
  }
}

const daemons = [];
const homes = [];
let failed = null;
const rows = [];
const figures = {};
try {
  const keyDir = makeTempDir('peer-keys');
  homes.push(keyDir);
  const keyFile = path.join(keyDir, 'cluster.key');
  fs.writeFileSync(keyFile, execFileSync(process.execPath, [SCHED_BIN, 'cluster', 'keygen']), {
    mode: 0o600,
  });
  const seed = await startDaemon({ label: 'peer-seed' });
  await seed.stop();
  const secretKey = path.join(seed.home, 'secret.key');
  const ids = [];
  for (let index = 0; index < 3; index += 1) ids.push(`127.0.0.1:${await freePort()}`);
  progress(`peer mode: starting three daemons on ${ids.join(', ')}`);
  const started = await Promise.all(
    ids.map((id, index) => {
      const home = makeTempDir(`peer-${index}`);
      fs.copyFileSync(secretKey, path.join(home, 'secret.key'));
      return startDaemon({
        label: `peer-${index}`,
        home,
        args: ['--peers', ids.join(','), '--bind', id, '--cluster-key-file', keyFile],
      });
    }),
  );
  await seed.dispose();
  daemons.push(...started);
  const agreed = await until('a leader and a map over all three', async () => {
    const all = await Promise.all(daemons.map(statusOf));
    const first = all[0];
    const same = all.every(
      (one) => one.term > 0 && one.term === first.term && one.coordinator === first.coordinator,
    );
    return same && first.nodes.filter((node) => node.shards > 0).length === 3 ? first : null;
  });
  const leaderIndex = ids.indexOf(agreed.peers.leader);
  const followerIndex = (leaderIndex + 1) % 3;
  progress(
    `leader ${agreed.peers.leader} (term ${agreed.peers.raftTerm}); creating ${JOBS} jobs through a follower`,
  );

  const client = await daemons[followerIndex].connect();
  const created = await pipelined(JOBS, 8, (i) =>
    client.call('job.add', { input: { name: `tick-${i}`, every: '1s', argv: ['true'] } }),
  );
  client.close();
  const createLatency = summarize(created.latenciesMs);
  rows.push({
    benchmark: 'peer-mode',
    scenario: 'creates through a follower, 8 in flight',
    n: JOBS,
    rate: JOBS / (created.elapsedMs / 1000),
    rateUnit: 'jobs/s',
    p50: round(createLatency.p50),
    p99: round(createLatency.p99),
    max: round(createLatency.max),
    notes: 'forwarded to the leader, committed by a majority, applied where it was made',
  });

  const windowFrom = Date.now() + 2_000;
  const windowTo = windowFrom + WINDOW_MS;
  progress(`firing window of ${WINDOW_MS / 1000} s`);
  await sleep(windowTo - Date.now() + 1_500);

  const killAt = Date.now();
  const leader = daemons[leaderIndex];
  progress(`killing the leader ${ids[leaderIndex]} (-9)`);
  process.kill(leader.pid, 'SIGKILL');
  await leader.exited;
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
  for (const daemon of daemons) if (daemon !== leader) await daemon.stop();

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
    createLatency,
    lateness,
    duplicates,
    mapAfterMs,
    resumed,
    killedJobs: killedJobs.size,
  });
} catch (error) {
  failed = error;
} finally {
  for (const daemon of daemons) await daemon.dispose().catch(() => undefined);
  for (const home of homes) removeTempDir(home);
}
if (failed) {
  console.error(failed);
  process.exitCode = 1;
} else {
  emitResult({
    benchmark: 'peer mode: three daemons on loopback, one Raft log, no database server',
    rows,
    figures,
  });
}

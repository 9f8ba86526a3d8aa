// 17. Peer mode partitions (issue #12: "from a partition to the minority's last once-job fire and the
//     majority's first fire of the same shard (the gap must be positive)"). Five daemons, each in a network
//     namespace of its own on one bridge (test/support/netns-lab.ts, bundled: needs root), fire
//     BENCH_PEER_PARTITION_JOBS once-jobs `every 1s`, each run appending `job instant now-in-ms` to ran.log
//     in its node's home (the time the run's command ran, whichever node's database knows of it). Each
//     trial waits for a settled cluster, cuts two nodes off the other three (every other trial the two hold
//     the leader) for BENCH_PEER_PARTITION_HOLD_S, then heals. For each shard the minority fired in the 2 s
//     before the cut: the minority's last fire of its jobs before the heal and the majority's first, from
//     the cut; the gap between them must be positive (never two nodes firing one shard). Nodes with no
//     shards at the cut show nothing; a shard the majority had not fired by the heal has no gap (counted).
// Knobs: BENCH_PEER_PARTITION_TRIALS (4; quick 2), BENCH_PEER_PARTITION_JOBS (60),
//        BENCH_PEER_PARTITION_HOLD_S (30).
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { shardOf } from '../dist/core/cluster/shard.js';
import { knob } from './lib/config.js';
import { reportFailure, startPeerCluster, untilSettled } from './lib/peer-cluster.js';
import { pipelined } from './lib/pipeline.js';
import { emitResult, progress } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { bundleTestSupport } from './lib/test-support-bundle.js';

const TRIALS = knob('PEER_PARTITION_TRIALS', 4, 2);
const JOBS = knob('PEER_PARTITION_JOBS', 60);
const HOLD_MS = knob('PEER_PARTITION_HOLD_S', 30) * 1000;
const NODES = 5;
const PEER_PORT = 7946;
const RECORD_RUN = 'echo "$SCHED_JOB_ID $SCHED_SCHEDULED_FOR_MS $(date +%s%3N)" >> "$SCHED_HOME/ran.log"';

/** Every run each node's commands recorded: { node, jobId, instant, at }. */
function ranLines(homes) {
  return homes.flatMap((home, node) => {
    const file = path.join(home, 'ran.log');
    if (!fs.existsSync(file)) return [];
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [jobId, instant, at] = line.split(' ');
        return { node, jobId, instant: Number(instant), at: Number(at) };
      });
  });
}

/** Per shard the minority fired just before the cut: its last fire and the majority's first, from the cut. */
function shardGaps(lines, minority, cutAt, healAt) {
  const onMinority = (line) => minority.includes(line.node);
  const held = new Set(
    lines
      .filter((line) => onMinority(line) && line.at >= cutAt - 2_000 && line.at < cutAt)
      .map((line) => shardOf(line.jobId)),
  );
  return [...held].map((shard) => {
    const mine = lines.filter((line) => shardOf(line.jobId) === shard && line.at < healAt);
    const minorityLast = Math.max(...mine.filter(onMinority).map((line) => line.at));
    const majorityFirst = Math.min(
      ...mine.filter((line) => !onMinority(line) && line.at >= cutAt).map((line) => line.at),
    );
    return {
      shard,
      minorityLastMs: minorityLast - cutAt,
      majorityFirstMs: Number.isFinite(majorityFirst) ? majorityFirst - cutAt : NaN,
      gapMs: Number.isFinite(majorityFirst) ? majorityFirst - minorityLast : NaN,
    };
  });
}

async function trial(cluster, lab, number) {
  const settled = await untilSettled(cluster, 120_000);
  await sleep(3_000);
  const leader = cluster.ids.indexOf(settled.peers.leader);
  const others = [0, 1, 2, 3, 4].filter((index) => index !== leader);
  const minority = number % 2 === 1 ? [leader, others[number % others.length]] : others.slice(0, 2);
  const majority = [0, 1, 2, 3, 4].filter((index) => !minority.includes(index));
  const cutAt = Date.now();
  lab.partition([minority, majority]);
  await sleep(HOLD_MS);
  const healAt = Date.now();
  lab.heal();
  const gaps = shardGaps(ranLines(cluster.homes), minority, cutAt, healAt);
  const found = gaps.filter((gap) => Number.isFinite(gap.gapMs));
  const summary = summarize(found.map((gap) => gap.gapMs));
  progress(
    `trial ${number}: nodes ${minority.join(',')} cut off (leader ${leader} ${minority.includes(leader) ? 'among them' : 'not'}); ` +
      `${gaps.length} shards they fired, ${found.length} fired by the majority before the heal; gap min ${summary.min} ms, ` +
      `p50 ${summary.p50} ms; minority's last fire ${summarize(gaps.map((gap) => gap.minorityLastMs)).max} ms after the cut at most`,
  );
  return { trial: number, minority, leaderInMinority: minority.includes(leader), gaps };
}

if (process.getuid() !== 0) {
  console.error('peer-partition.js needs root (network namespaces); nothing measured');
  emitResult({ benchmark: 'peer mode partitions (not run: needs root)', rows: [], figures: {} });
} else {
  const bundle = await bundleTestSupport('netns-lab', [
    "export { NetnsLab } from './test/support/netns-lab.js';",
  ]);
  const { NetnsLab } = await import(bundle.file);
  let lab = null;
  let cluster = null;
  let failed = null;
  const trials = [];
  try {
    lab = NetnsLab.create(NODES);
    const ids = lab.addresses.map((address) => `${address}:${PEER_PORT}`);
    cluster = await startPeerCluster({
      count: NODES,
      ids,
      prefixOf: (index) => lab.execIn(index),
      label: 'partition',
    });
    progress(`five daemons in namespaces of their own: ${ids.join(', ')}`);
    await untilSettled(cluster);
    const client = await cluster.daemons[0].connect();
    await pipelined(JOBS, 8, (i) =>
      client.call('job.add', { input: { name: `once-${i}`, every: '1s', argv: ['sh', '-c', RECORD_RUN] } }),
    );
    client.close();
    for (let number = 1; number <= TRIALS; number += 1) trials.push(await trial(cluster, lab, number));
  } catch (error) {
    failed = error;
  } finally {
    await cluster?.dispose();
    lab?.destroy();
    bundle.remove();
  }
  if (failed) reportFailure(failed);
  else {
    const rows = [true, false].map((leaderInMinority) => {
      const gaps = trials
        .filter((one) => one.leaderInMinority === leaderInMinority)
        .flatMap((one) => one.gaps);
      const found = gaps.filter((gap) => Number.isFinite(gap.gapMs));
      const gap = summarize(found.map((one) => one.gapMs));
      const last = summarize(gaps.map((one) => one.minorityLastMs));
      const first = summarize(found.map((one) => one.majorityFirstMs));
      return {
        benchmark: 'peer-partition',
        scenario: `2 of 5 cut off, the leader ${leaderInMinority ? 'among them' : 'not'}: gap per shard`,
        n: found.length,
        p50: gap.p50,
        max: gap.max,
        notes:
          `gap min ${gap.min} ms; from the cut, minority's last fire p50 ${last.p50} / max ${last.max} ms, ` +
          `majority's first p50 ${first.p50} / max ${first.max} ms; ${gaps.length - found.length} shard(s) not fired by the majority in ${HOLD_MS / 1000} s`,
        goals: found.length ? { 'peer-partition-gap': gap.min } : {},
      };
    });
    emitResult({
      benchmark: `peer mode partitions: five daemons in network namespaces, ${TRIALS} trials`,
      rows,
      figures: { trials },
    });
  }
}

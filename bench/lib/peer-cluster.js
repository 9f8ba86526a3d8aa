// Daemons in peer mode (issue #12) for a benchmark: each its own SCHED_HOME, one cluster key (`sched
// cluster keygen`) and one secret key (made by a daemon started alone first, then copied), started
// together since a write needs a majority. Used by peer-mode.js, peer-failover.js, peer-partition.js and
// peer-capacity.js.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDaemon } from './daemon.js';
import { freePort } from './free-port.js';
import { SCHED_BIN } from './paths.js';
import { makeTempDir, removeTempDir } from './processes.js';
import { readRunsSince } from './runs-db.js';

/** Polls `probe` every 100 ms until it returns something, for at most `timeoutMs`. */
export async function until(what, probe, timeoutMs = 60_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** `cluster.status` of one daemon, what `sched cluster status --json` prints. */
export async function statusOf(daemon) {
  const client = await daemon.connect();
  try {
    return await client.call('cluster.status', {});
  } finally {
    client.close();
  }
}

/**
 * `count` peer daemons. `ids` are the addresses they bind (loopback ports by default); `prefixOf(index)`
 * an argv that runs a daemon elsewhere (`ip netns exec NS`). Returns the cluster: `daemons[i]` is null
 * while node i is down; `kill(i)` is kill -9, `restart(i)` starts it again on its home and flags.
 */
export async function startPeerCluster({ count, ids: givenIds, prefixOf = () => [], label = 'peer' }) {
  const keyDir = makeTempDir(`${label}-keys`);
  const keyFile = path.join(keyDir, 'cluster.key');
  fs.writeFileSync(keyFile, execFileSync(process.execPath, [SCHED_BIN, 'cluster', 'keygen']), {
    mode: 0o600,
  });
  const seed = await startDaemon({ label: `${label}-seed` });
  await seed.stop();
  const ids = givenIds ?? [];
  for (let index = ids.length; index < count; index += 1) ids.push(`127.0.0.1:${await freePort()}`);
  const homes = ids.map((_, index) => makeTempDir(`${label}-${index}`));
  for (const home of homes)
    fs.copyFileSync(path.join(seed.home, 'secret.key'), path.join(home, 'secret.key'));
  await seed.dispose();
  const argsOf = (index) => ['--peers', ids.join(','), '--bind', ids[index], '--cluster-key-file', keyFile];
  const launch = (index) =>
    startDaemon({
      label: `${label}-${index}`,
      home: homes[index],
      args: argsOf(index),
      prefix: prefixOf(index),
    });
  const cluster = {
    ids,
    homes,
    daemons: ids.map(() => null),
    up: () => cluster.daemons.filter(Boolean),
    async kill(index) {
      const daemon = cluster.daemons[index];
      cluster.daemons[index] = null;
      process.kill(daemon.pid, 'SIGKILL');
      await daemon.exited;
    },
    async restart(index) {
      cluster.daemons[index] = await launch(index);
    },
    /** Stops every daemon and keeps the homes, to read their databases. */
    async stop() {
      for (const daemon of cluster.up()) await daemon.stop();
    },
    async dispose() {
      for (const daemon of cluster.up()) await daemon.stop().catch(() => undefined);
      for (const home of [...homes, keyDir]) removeTempDir(home);
    },
  };
  const started = await Promise.allSettled(ids.map((_, index) => launch(index)));
  started.forEach(
    (result, index) => (cluster.daemons[index] = result.status === 'fulfilled' ? result.value : null),
  );
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await cluster.dispose();
    throw failed.reason;
  }
  return cluster;
}

/**
 * The runs every running node of `cluster` has recorded since `fromMs` (createdAt), one per run id: read
 * live and read-only, so a run one node has not applied yet still counts if another has.
 */
export function runsSince(cluster, fromMs) {
  const byId = new Map();
  for (const daemon of cluster.up())
    for (const run of readRunsSince(daemon.databasePath, fromMs)) byId.set(run.id, run);
  return [...byId.values()];
}

/** Runs `body` on a peer cluster started with `options`, and disposes of the cluster however it ends. */
export async function withPeerCluster(options, body) {
  const cluster = await startPeerCluster(options);
  try {
    return await body(cluster);
  } finally {
    await cluster.dispose();
  }
}

/** A benchmark's failure: printed, and the exit code says so (run-all counts it). */
export function reportFailure(error) {
  console.error(error);
  process.exitCode = 1;
  return null;
}

/**
 * Waits until every running node names the same leader and term, and one map gives shards to all of them
 * (none unassigned). Returns the first node's status.
 */
export async function untilSettled(cluster, timeoutMs = 60_000) {
  let last = [];
  try {
    return await until(
      `a leader and a map over all ${cluster.up().length} running nodes`,
      async () => {
        const all = await Promise.all(cluster.up().map((daemon) => statusOf(daemon).catch((error) => error)));
        last = all;
        if (all.some((one) => one instanceof Error)) return null;
        const first = all[0];
        const same = all.every(
          (one) =>
            one.term > 0 &&
            one.term === first.term &&
            one.peers.leader !== null &&
            one.peers.leader === first.peers.leader &&
            one.unassignedShards === 0,
        );
        return same && first.nodes.filter((node) => node.shards > 0).length === all.length ? first : null;
      },
      timeoutMs,
    );
  } catch (error) {
    // What each node said last, so a cluster that never settles says why.
    const said = last.map((one) =>
      one instanceof Error
        ? one.message
        : `term ${one.term}, leader ${one.peers.leader}, unassigned ${one.unassignedShards}, shards ` +
          one.nodes.map((node) => `${node.id}=${node.shards}`).join(' '),
    );
    throw new Error(`${error.message}; last seen: ${said.join(' | ')}`);
  }
}

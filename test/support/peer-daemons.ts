import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'vitest';
import { sched, waitFor, type RunningDaemon } from './sched-harness.js';

/** A run as `sched history --json` lists it. */
export interface PeerRunRow {
  id: string;
  scheduledFor: number;
  node: string;
  state: string;
}

/**
 * Below Linux's ephemeral range (32768-60999), where the kernel hands out the source ports of outgoing
 * connections: a port picked inside it could be taken, between the pick and the daemon's bind, by any
 * connection on the machine (the cluster's first members connecting to each other, for one).
 */
const PEER_PORTS = { from: 20_000, count: 12_000 };

/** A loopback port free for both TCP and UDP now (the peer streams and the gossip share it). */
export async function freePeerPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = PEER_PORTS.from + Math.floor(Math.random() * PEER_PORTS.count);
    const server = net.createServer();
    const tcpFree = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!tcpFree) continue;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const socket = dgram.createSocket('udp4');
    const free = await new Promise<boolean>((resolve) => {
      socket.once('error', () => resolve(false));
      socket.bind(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    if (free) return port;
  }
  throw new Error('no loopback port is free for both TCP and UDP');
}

/**
 * `count` distinct free ports, for the members of one cluster: two picks of freePeerPort can be the same
 * port, and a cluster whose `--peers` names one address twice has a voter fewer than the test meant.
 */
export async function freePeerPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePeerPort());
  return [...ports];
}

export interface PeerDaemons {
  homes: string[];
  /** Each node's id: the address it is reached at. */
  ids: string[];
  daemons: RunningDaemon[];
  keyFile: string;
  /** Each node's key file: `keyFile` for all, or each its own copy (`ownKeyFiles`). */
  keyFiles: string[];
  /** What each node was started with, to start it again. */
  args: string[][];
}

export interface PeerDaemonOptions {
  /** Each host its own copy of the key file, as on real hosts (`sched cluster keys` rewrites it). */
  ownKeyFiles?: boolean;
  /** More flags for every node, say `--metrics 127.0.0.1:0`. */
  extraArgs?: string[];
}

/** Every node serves /metrics on a loopback port of its own (see metricsAddressOf). */
export const WITH_METRICS: PeerDaemonOptions = { extraArgs: ['--metrics', '127.0.0.1:0'] };

/** Writes a fresh cluster key to `file` (0600), as `sched cluster keygen > file` does; returns the key. */
export async function newClusterKeyFile(home: string, file: string): Promise<string> {
  const keygen = await sched(home, ['cluster', 'keygen']);
  expect(keygen.code, keygen.stderr).toBe(0);
  fs.writeFileSync(file, keygen.stdout, { mode: 0o600 });
  return keygen.stdout.trim();
}

/**
 * `count` daemons on loopback sharing one cluster key and one secret key, started together; node `i` has the
 * label `index=i`.
 */
export async function startPeerDaemons(
  count: number,
  home: () => string,
  start: (home: string, args: string[]) => Promise<RunningDaemon>,
  options: PeerDaemonOptions = {},
): Promise<PeerDaemons> {
  const homes = Array.from({ length: count }, () => home());
  const ids: string[] = [];
  for (const port of await freePeerPorts(count)) ids.push(`127.0.0.1:${port}`);
  const keyFile = path.join(homes[0]!, 'cluster.key');
  await newClusterKeyFile(homes[0]!, keyFile);
  const keyFiles = homes.map((dir) => (options.ownKeyFiles ? path.join(dir, 'cluster.key') : keyFile));
  for (const file of new Set(keyFiles)) if (file !== keyFile) fs.copyFileSync(keyFile, file);
  // Every node seals secrets with one key, as an operator copies it to each host: the first start makes it.
  const seed = await start(homes[0]!, []);
  await seed.stop('SIGTERM');
  for (const dir of homes.slice(1))
    fs.copyFileSync(path.join(homes[0]!, 'secret.key'), path.join(dir, 'secret.key'));
  const args = homes.map((_, index) => [
    ...peerArgs(ids, index, keyFiles[index]!),
    ...(options.extraArgs ?? []),
  ]);
  const daemons = await Promise.all(homes.map((dir, index) => start(dir, args[index]!)));
  return { homes, ids, daemons, keyFile, keyFiles, args };
}

/** The flags node `index` of `ids` starts with. */
export function peerArgs(ids: string[], index: number, keyFile: string): string[] {
  return [
    '--peers',
    ids.join(','),
    '--bind',
    ids[index]!,
    '--cluster-key-file',
    keyFile,
    '--label',
    `index=${index}`,
  ];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- `cluster status --json` as the test reads it
export async function peerStatus(dir: string): Promise<any> {
  const result = await sched(dir, ['cluster', 'status', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return result.json;
}

export async function peerRunsOf(dir: string, job: string): Promise<PeerRunRow[]> {
  const result = await sched(dir, ['history', job, '--json', '--limit', '200']);
  expect(result.code, result.stderr).toBe(0);
  return result.json.items as PeerRunRow[];
}

/** Waits until every node of `homes` names the same leader, and returns it. */
export async function leaderAgreed(homes: string[], timeoutMs = 30_000): Promise<string> {
  return waitFor(
    async () => {
      const leaders = (await Promise.all(homes.map(peerStatus))).map((one) => one.peers?.leader ?? null);
      return leaders[0] !== null && leaders.every((leader) => leader === leaders[0]) ? leaders[0] : null;
    },
    timeoutMs,
    200,
  );
}

/** The `/metrics` address a daemon started with `--metrics 127.0.0.1:0` listens on, from its start line. */
export function metricsAddressOf(daemon: RunningDaemon): string {
  const started = daemon
    .output()
    .split('\n')
    .find((line) => line.includes('"daemon:started"'));
  const address = started ? (JSON.parse(started).metricsAddress as string | null) : null;
  if (!address) throw new Error('the daemon was not started with --metrics');
  return address;
}

/** `sched_peer_messages_dropped_total` of a daemon, by `channel/reason` (absent: none dropped). */
export async function peerDrops(daemon: RunningDaemon): Promise<Record<string, number>> {
  const text = await (await fetch(`http://${metricsAddressOf(daemon)}/metrics`)).text();
  const drops: Record<string, number> = {};
  const line = /^sched_peer_messages_dropped_total\{channel="([^"]+)",reason="([^"]+)"\} (\d+)$/gm;
  for (const [, channel, reason, count] of text.matchAll(line)) drops[`${channel}/${reason}`] = Number(count);
  return drops;
}

import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'vitest';
import { sched, type RunningDaemon } from './sched-harness.js';

/** A run as `sched history --json` lists it. */
export interface PeerRunRow {
  id: string;
  scheduledFor: number;
  node: string;
  state: string;
}

/** A loopback port free for both TCP and UDP now (the peer streams and the gossip share it). */
export async function freePeerPort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
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

export interface PeerDaemons {
  homes: string[];
  /** Each node's id: the address it is reached at. */
  ids: string[];
  daemons: RunningDaemon[];
  keyFile: string;
}

/**
 * `count` daemons on loopback sharing one cluster key and one secret key, started together; node `i` has the
 * label `index=i`.
 */
export async function startPeerDaemons(
  count: number,
  home: () => string,
  start: (home: string, args: string[]) => Promise<RunningDaemon>,
): Promise<PeerDaemons> {
  const homes = Array.from({ length: count }, () => home());
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) ids.push(`127.0.0.1:${await freePeerPort()}`);
  const keygen = await sched(homes[0]!, ['cluster', 'keygen']);
  expect(keygen.code, keygen.stderr).toBe(0);
  const keyFile = path.join(homes[0]!, 'cluster.key');
  fs.writeFileSync(keyFile, keygen.stdout, { mode: 0o600 });
  // Every node seals secrets with one key, as an operator copies it to each host: the first start makes it.
  const seed = await start(homes[0]!, []);
  await seed.stop('SIGTERM');
  for (const dir of homes.slice(1))
    fs.copyFileSync(path.join(homes[0]!, 'secret.key'), path.join(dir, 'secret.key'));
  const daemons = await Promise.all(homes.map((dir, index) => start(dir, peerArgs(ids, index, keyFile))));
  return { homes, ids, daemons, keyFile };
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

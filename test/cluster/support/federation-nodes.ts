import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { sched, waitFor, type RunningDaemon } from '../../support/sched-harness.js';

/** Short cluster timings, so failover fits in a test: dead after 1.5 s, lease 3 s. */
export const CLUSTER_ARGS = ['--heartbeat-interval', '500ms', '--lease-ttl', '3s'];

export interface ClusterNode {
  id: string;
  alive: boolean;
  shards: number;
  coordinator: boolean;
  self: boolean;
}

export interface ClusterStatus {
  term: number;
  coordinator: string | null;
  nodes: ClusterNode[];
  node: string;
  mapPublishedAt: number | null;
}

export async function clusterStatus(home: string): Promise<ClusterStatus> {
  const result = await sched(home, ['cluster', 'status', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return result.json;
}

/** What `useDaemons` hands a test, to make homes and start daemons that it cleans up. */
interface Daemons {
  home(): string;
  start(dir: string, args?: string[]): Promise<RunningDaemon>;
}

/** Starts `count` daemons on the store at `url` and waits until every one of them owns shards. */
export async function startNodes(
  daemons: Daemons,
  url: string,
  count: number,
  extra: (index: number) => string[] = () => [],
): Promise<{ homes: string[]; daemons: RunningDaemon[] }> {
  const homes = Array.from({ length: count }, () => daemons.home());
  const started: RunningDaemon[] = [];
  for (const [index, dir] of homes.entries()) {
    if (index > 0) shareKeyFile(homes[0]!, dir);
    started.push(await daemons.start(dir, ['--store', url, ...CLUSTER_ARGS, ...extra(index)]));
  }
  await waitFor(async () => {
    const status = await clusterStatus(homes[0]!);
    return status.nodes.filter((node) => node.alive && node.shards > 0).length === count ? status : null;
  }, 20_000);
  return { homes, daemons: started };
}

/**
 * Every daemon of a federation seals and opens secrets with one key: gives the daemon of `to` the key file
 * the first daemon (in `from`) created, as an operator copies it to each host.
 */
export function shareKeyFile(from: string, to: string): void {
  fs.copyFileSync(path.join(from, 'secret.key'), path.join(to, 'secret.key'));
  fs.chmodSync(path.join(to, 'secret.key'), 0o600);
}

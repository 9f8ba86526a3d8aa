import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { ClusterMember } from '../../../src/cluster/cluster-member.js';
import { systemClock } from '../../../src/daemon/clock.js';
import type { ClusterMemberOptions } from '../../../src/cluster/cluster-member.js';
import { PostgresClusterStore } from '../../../src/store/postgres/cluster-store.js';
import type { ShardMap } from '../../../src/core/cluster/shard-map.js';

/** Short timings so failover takes about a second; the acting window is TTL/2 = 500 ms. */
export const TIMING = { heartbeatIntervalMs: 100, leaseTtlMs: 1_000, deadAfterMs: 500 } as const;

/** Everything one member announced, stamped with the monotonic time it happened. */
export interface MemberLog {
  acquired: { term: number; at: number }[];
  lost: { term: number; at: number }[];
  maps: ShardMap[];
  errors: Error[];
}

export function watch(member: ClusterMember): MemberLog {
  const log: MemberLog = { acquired: [], lost: [], maps: [], errors: [] };
  member.on('coordinator:acquired', ({ term }) => log.acquired.push({ term, at: performance.now() }));
  member.on('coordinator:lost', ({ term }) => log.lost.push({ term, at: performance.now() }));
  member.on('map:changed', (map) => log.maps.push(map));
  member.on('member:error', ({ error }) => log.errors.push(error));
  return log;
}

export function newMember(
  pool: pg.Pool,
  id: string,
  options: Partial<ClusterMemberOptions> = {},
): { member: ClusterMember; store: PostgresClusterStore } {
  const store = new PostgresClusterStore(pool);
  const member = new ClusterMember({
    store,
    clock: systemClock,
    node: { id, hostname: `host-${id.slice(0, 4)}`, address: '', version: '0.1.0', labels: {}, load: 0 },
    ...TIMING,
    ...options,
  });
  return { member, store };
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

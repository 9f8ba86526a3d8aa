import path from 'node:path';
import { z } from 'zod';
import { tryParsePeerAddress } from '../core/peer/peer-address.js';
import { commaList } from './comma-list.js';
import type { KeySpec } from './keys.js';

const isPeerAddress = (text: string): boolean => tryParsePeerAddress(text.trim()) !== null;

function peerAddressKey(key: string, env: string, flag: string, what: string): KeySpec {
  return {
    key,
    env,
    flag,
    expects: `host:port, ${what}`,
    schema: z.string().refine(isPeerAddress),
    fromText: (text) => text.trim(),
    default: () => null,
  };
}

function peerListKey(key: string, env: string, flag: string, what: string): KeySpec {
  return {
    key,
    env,
    flag,
    expects: `a list of host:port, ${what}`,
    schema: z.array(z.string().refine(isPeerAddress)).min(1),
    fromText: commaList,
    default: () => [],
  };
}

/**
 * `[cluster]`: peer mode. `mode = "peers"` (or `--peers`) makes the daemon one of the voters listed in
 * `peers`, or (`join`) a new member of a running cluster, listening on `bind` and sealing its traffic with
 * `key_file`; `store` (the default) lets the store decide: alone on SQLite, federated on PostgreSQL.
 */
export const CLUSTER_KEYS: readonly KeySpec[] = [
  {
    key: 'cluster.mode',
    env: 'SCHED_CLUSTER_MODE',
    expects: '"store" (alone on SQLite, federated on PostgreSQL) or "peers"',
    schema: z.enum(['store', 'peers']),
    fromText: (text) => text.trim(),
    default: () => 'store',
  },
  peerListKey(
    'cluster.peers',
    'SCHED_PEERS',
    '--peers',
    'every voter of the cluster with this node included',
  ),
  peerListKey('cluster.join', 'SCHED_PEER_JOIN', '--join', 'members of the running cluster to join through'),
  peerAddressKey('cluster.bind', 'SCHED_PEER_BIND', '--bind', 'where this node listens for its peers'),
  peerAddressKey(
    'cluster.advertise',
    'SCHED_PEER_ADVERTISE',
    '--advertise',
    'the address the other peers reach this node at',
  ),
  {
    key: 'cluster.key_file',
    env: 'SCHED_CLUSTER_KEY_FILE',
    flag: '--cluster-key-file',
    expects: 'the absolute path of the cluster key file (`sched cluster keygen`)',
    schema: z.string().refine((text) => path.isAbsolute(text)),
    fromText: (text) => path.resolve(text.trim()),
    default: () => null,
  },
];

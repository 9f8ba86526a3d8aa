import { randomBytes } from 'node:crypto';
import type { ClusterKeyring } from '../../../src/core/peer/cluster-keyring.js';
import type { SwimMessage } from '../../../src/core/membership/swim-messages.js';
import { MessageSeal } from '../../../src/cluster/peer/message-seal.js';
import { SwimDatagrams } from '../../../src/cluster/peer/swim-datagrams.js';
import type { PeerAddress } from '../../../src/core/peer/peer-address.js';

export const newKey = (): string => randomBytes(32).toString('base64');
export const ring = (...keys: string[]): ClusterKeyring => ({ keys });

/** A UDP endpoint on loopback that keeps what it receives. */
export async function datagramNode(host: string, keys: ClusterKeyring, port = 0) {
  const inbox: { message: SwimMessage; from: PeerAddress }[] = [];
  const drops: string[] = [];
  const seal = new MessageSeal(keys);
  const transport = await SwimDatagrams.open({
    bind: { host, port },
    seal,
    onMessage: (message, from) => inbox.push({ message, from }),
    onDrop: (reason, detail) => drops.push(`${reason}: ${detail}`),
  });
  return { seal, transport, inbox, drops, address: transport.address() };
}

export function ping(from: string, to: string, seq: number): SwimMessage {
  return { type: 'ping', from, to, seq, updates: [{ id: from, incarnation: 0, state: 'alive' }] };
}

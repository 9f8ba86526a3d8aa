import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
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

/** Sends `bytes` as one UDP datagram, as a stranger to the cluster would. */
export function sendRaw(bytes: Buffer, to: PeerAddress): Promise<void> {
  const socket = dgram.createSocket(to.host.includes(':') ? 'udp6' : 'udp4');
  return new Promise((resolve, reject) =>
    socket.send(bytes, to.port, to.host, (error) => {
      socket.close();
      if (error) reject(error);
      else resolve();
    }),
  );
}

/** A raw TCP client, to send what no PeerStreams would. */
export function rawClient(to: PeerAddress): Promise<{ socket: net.Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(to.port, to.host, () => resolve({ socket, closed }));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', reject);
    socket.on('error', () => undefined);
  });
}

/** Sends a 10 MB length prefix and as much of its body as goes before the other end closes; resolves then. */
export async function sendTenMegabyteFrame(to: PeerAddress): Promise<void> {
  const { socket, closed } = await rawClient(to);
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(10 * 1024 * 1024);
  socket.write(prefix);
  // The body follows in 64 kB writes; the server closes after the prefix, so most of it never leaves.
  let written = 0;
  const body = Buffer.alloc(64 * 1024);
  while (written < 10 * 1024 * 1024 && !socket.destroyed && socket.write(body)) written += body.length;
  await closed;
}

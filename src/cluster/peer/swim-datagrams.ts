import dgram from 'node:dgram';
import { once } from 'node:events';
import net from 'node:net';
import type { SwimMessage } from '../../core/membership/swim-messages.js';
import type { PeerAddress } from '../../core/peer/peer-address.js';
import { decodeSwimMessage, encodeSwimMessage, MAX_SWIM_DATAGRAM } from '../../core/membership/swim-wire.js';
import { SEAL_OVERHEAD, type MessageSeal } from './message-seal.js';

/** Why a datagram was not delivered: counted per reason, for a metric. */
export type DatagramDrop =
  'oversize' | 'unsealed' | 'malformed' | 'unsendable' | 'send-failed' | 'handler-failed';

export interface SwimDatagramsOptions {
  bind: PeerAddress;
  seal: MessageSeal;
  onMessage: (message: SwimMessage, from: PeerAddress) => void;
  onDrop?: (reason: DatagramDrop, detail: string) => void;
}

/**
 * SWIM's messages over UDP: each one a datagram of at most 1,400 bytes, sealed under the cluster key.
 * Delivery is best effort, as SWIM expects; whatever arrives that is too large, does not open or does not
 * decode is dropped and counted, and nothing a peer sends can throw out of the receive path.
 */
export class SwimDatagrams {
  readonly dropped: Record<DatagramDrop, number> = {
    oversize: 0,
    unsealed: 0,
    malformed: 0,
    unsendable: 0,
    'send-failed': 0,
    'handler-failed': 0,
  };
  received = 0;

  private constructor(
    private readonly socket: dgram.Socket,
    private readonly options: SwimDatagramsOptions,
  ) {
    socket.on('message', (datagram, remote) =>
      this.receive(datagram, { host: remote.address, port: remote.port }),
    );
    // Errors on a bound UDP socket are per datagram (an ICMP unreachable, a full buffer): counted, not fatal.
    socket.on('error', (error) => this.drop('send-failed', error.message));
  }

  /** Bound to `options.bind`; rejects (an address in use, not local) without leaving a socket open. */
  static async open(options: SwimDatagramsOptions): Promise<SwimDatagrams> {
    const socket = dgram.createSocket({ type: net.isIPv6(options.bind.host) ? 'udp6' : 'udp4' });
    socket.bind(options.bind.port, options.bind.host);
    try {
      await once(socket, 'listening');
    } catch (error) {
      socket.close();
      throw error;
    }
    return new SwimDatagrams(socket, options);
  }

  address(): PeerAddress {
    const { address, port } = this.socket.address();
    return { host: address, port };
  }

  send(message: SwimMessage, to: PeerAddress): void {
    const plain = encodeSwimMessage(message, MAX_SWIM_DATAGRAM - SEAL_OVERHEAD);
    if (plain === null)
      return this.drop('unsendable', `${message.type} to ${message.to} does not fit a datagram`);
    const sealed = this.options.seal.seal(plain, 'swim');
    this.socket.send(sealed, to.port, to.host, (error) => {
      if (error) this.drop('send-failed', error.message);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private receive(datagram: Buffer, from: PeerAddress): void {
    if (datagram.length > MAX_SWIM_DATAGRAM)
      return this.drop('oversize', `${datagram.length} bytes from ${from.host}:${from.port}`);
    const plain = this.options.seal.open(datagram, 'swim');
    if (plain === null) return this.drop('unsealed', `from ${from.host}:${from.port}`);
    const decoded = decodeSwimMessage(plain);
    if (!decoded.ok) return this.drop('malformed', `from ${from.host}:${from.port}: ${decoded.reason}`);
    this.received += 1;
    try {
      this.options.onMessage(decoded.message, from);
    } catch (error) {
      this.drop('handler-failed', (error as Error).message);
    }
  }

  private drop(reason: DatagramDrop, detail: string): void {
    this.dropped[reason] += 1;
    this.options.onDrop?.(reason, detail);
  }
}

import { once } from 'node:events';
import net from 'node:net';
import type { Clock } from '../../core/clock.js';
import { MAX_STREAM_FRAME } from '../../core/peer/wire-fields.js';
import { FRAME_LENGTH_BYTES, FrameReader, frame, frameInPlace } from './frame-reader.js';
import { SEAL_OVERHEAD, type MessageSeal } from './message-seal.js';
import { PeerLink } from './peer-link.js';
import type { PeerAddress } from '../../core/peer/peer-address.js';

/** Why a frame was not delivered, counted per reason, for a metric. */
export type StreamDrop =
  'too-large' | 'unsealed' | 'unrouted' | 'unproven' | 'queue-full' | 'connection-limit' | 'handler-failed';

/** What a frame carries, as its first (sealed) byte: each protocol on the streams handles its own. */
// A topic is sent as its position here: new ones go at the end.
const TOPICS = [
  'raft',
  'push-pull',
  'forward',
  'forward-reply',
  'learn',
  'voters',
  'voters-reply',
  'raft-part',
  'snapshot-part',
] as const;
export type StreamTopic = (typeof TOPICS)[number];
/** Topic 0: the frame a connection opens with, so the other end knows it holds the key before trusting it. */
const HELLO_TOPIC = 0;
/**
 * Until a frame on a connection has opened, its frames are held to this size and it has this long to send
 * one: a stranger without the key holds at most a few hundred small buffers, and not for long.
 */
const MAX_UNPROVEN_FRAME = 1_024;

export type FrameHandler = (body: Buffer, from: PeerAddress) => void;

export interface PeerStreamsOptions {
  bind: PeerAddress;
  seal: MessageSeal;
  clock: Clock;
  random: () => number;
  onDrop?: (reason: StreamDrop, detail: string) => void;
  /** Frames waiting per peer while its connection is (re)opened; more are dropped. */
  maxQueuedFrames?: number;
  /** Inbound connections held at once; more are closed as they come. */
  maxConnections?: number;
  /** How long a connection has to send a frame that opens before it is closed (10 s). */
  proveWithinMs?: number;
}

/**
 * Raft's messages and push-pull state over TCP: one persistent connection to each peer, opened on the first
 * send and reopened with backoff when it fails, carrying frames (a 4-byte length, then a message sealed
 * under the cluster key, at most 4 MB). Delivery is one way and best effort, as Raft expects of its
 * network: a reply travels on the replier's own connection. A connection opens with a sealed hello; until
 * a frame on it has opened, frames are held to 1 kB. What a peer sends that is larger than a frame may be,
 * or does not open, closes its connection at once.
 */
export class PeerStreams {
  readonly dropped: Record<StreamDrop, number> = {
    'too-large': 0,
    unsealed: 0,
    unrouted: 0,
    unproven: 0,
    'queue-full': 0,
    'connection-limit': 0,
    'handler-failed': 0,
  };
  received = 0;
  private readonly links = new Map<string, PeerLink>();
  private readonly inbound = new Set<net.Socket>();
  private readonly handlers = new Map<StreamTopic, FrameHandler>();

  private constructor(
    private readonly server: net.Server,
    private readonly options: PeerStreamsOptions,
  ) {
    server.on('connection', (socket) => this.accept(socket));
    // Once listening, a server's errors are failed accepts (out of file descriptors): counted, not fatal.
    server.on('error', (error) => this.drop('connection-limit', error.message));
  }

  /** Listening on `options.bind`; rejects (an address in use, not local) without leaving a server open. */
  static async open(options: PeerStreamsOptions): Promise<PeerStreams> {
    const server = net.createServer({ noDelay: true });
    server.listen(options.bind.port, options.bind.host);
    await once(server, 'listening');
    return new PeerStreams(server, options);
  }

  address(): PeerAddress {
    const { address, port } = this.server.address() as net.AddressInfo;
    return { host: address, port };
  }

  /** The largest body `send` takes (a frame's bound less its topic byte). */
  readonly maxBody = MAX_STREAM_FRAME - 1;

  /** Who receives the frames of `topic`; a frame of a topic nobody handles is dropped. */
  handle(topic: StreamTopic, handler: FrameHandler): void {
    this.handlers.set(topic, handler);
  }

  /**
   * Seals `body` and sends it to `to`; false when it was dropped (its queue is full). A `bulk` frame (a part
   * of a large message, sent rarely) is taken however much the connection has not written yet.
   */
  send(to: PeerAddress, topic: StreamTopic, body: Uint8Array, bulk = false): boolean {
    if (body.length > this.maxBody) throw new RangeError(`a frame body holds at most ${this.maxBody} bytes`);
    const key = `${to.host}:${to.port}`;
    let link = this.links.get(key);
    if (!link) {
      link = new PeerLink(to, {
        clock: this.options.clock,
        random: this.options.random,
        maxQueuedFrames: this.options.maxQueuedFrames ?? 1_024,
        attach: (socket) => this.attach(socket, to, false),
        hello: () => frame(this.options.seal.seal(Uint8Array.of(HELLO_TOPIC), 'stream')),
      });
      this.links.set(key, link);
    }
    const topicByte = Uint8Array.of(TOPICS.indexOf(topic) + 1);
    const sealed = this.options.seal.sealParts([topicByte, body], 'stream', FRAME_LENGTH_BYTES);
    if (link.send(frameInPlace(sealed), bulk)) return true;
    this.drop('queue-full', `to ${key}`);
    return false;
  }

  /**
   * The number of the connection to `to` frames go to now: it changes when one closes (a frame written to
   * the one before may be lost). 0 before anything was sent to it.
   */
  connectionTo(to: PeerAddress): number {
    return this.links.get(`${to.host}:${to.port}`)?.connection ?? 0;
  }

  /** Bytes sent to `to` that its connection has not handed to the kernel yet (queued while it opens, or buffered). */
  unwrittenTo(to: PeerAddress): number {
    return this.links.get(`${to.host}:${to.port}`)?.unwritten ?? 0;
  }

  async close(): Promise<void> {
    for (const link of this.links.values()) link.close();
    for (const socket of this.inbound) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: net.Socket): void {
    if (this.inbound.size >= (this.options.maxConnections ?? 256)) {
      this.drop('connection-limit', `from ${socket.remoteAddress}`);
      socket.destroy();
      return;
    }
    this.inbound.add(socket);
    socket.on('close', () => this.inbound.delete(socket));
    this.attach(socket, { host: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 }, true);
  }

  /**
   * Reads frames from either end of a connection; a frame too large or unopenable ends the connection, and
   * so does an accepted connection whose first frame is not in within `proveWithinMs`. A connection this
   * node opened is not held to it: the peer answers over a connection of its own, so this one may carry
   * nothing back for as long as it lives.
   */
  private attach(socket: net.Socket, from: PeerAddress, accepted: boolean): void {
    const reader = new FrameReader(MAX_UNPROVEN_FRAME);
    let proven = false;
    const unproven = () => {
      if (proven) return;
      this.drop('unproven', `from ${from.host}:${from.port}`);
      socket.destroy();
    };
    const deadline = accepted
      ? this.options.clock.setTimer(this.options.proveWithinMs ?? 10_000, unproven)
      : () => undefined;
    socket.on('error', () => socket.destroy());
    socket.on('close', deadline);
    socket.on('data', (chunk: Buffer) => {
      reader.push(chunk);
      for (let event = reader.next(); event !== null; event = reader.next()) {
        if ('tooLarge' in event) {
          this.drop('too-large', `${event.tooLarge} bytes from ${from.host}:${from.port}`);
          socket.destroy();
          return;
        }
        const plain = this.options.seal.open(event.frame, 'stream');
        if (plain === null) {
          this.drop('unsealed', `from ${from.host}:${from.port}`);
          socket.destroy();
          return;
        }
        if (!proven) {
          proven = true;
          deadline();
          reader.allow(MAX_STREAM_FRAME + SEAL_OVERHEAD);
        }
        if (plain[0] === HELLO_TOPIC) continue;
        const handler = this.handlers.get(TOPICS[plain[0]! - 1]!);
        if (!handler) {
          this.drop('unrouted', `topic ${plain[0]} from ${from.host}:${from.port}`);
          continue;
        }
        this.received += 1;
        try {
          handler(plain.subarray(1), from);
        } catch (error) {
          this.drop('handler-failed', (error as Error).message);
        }
      }
    });
  }

  private drop(reason: StreamDrop, detail: string): void {
    this.dropped[reason] += 1;
    this.options.onDrop?.(reason, detail);
  }
}

import net from 'node:net';
import type { CancelTimer, Clock } from '../../core/clock.js';
import { backoffMs } from '../../core/retry/backoff.js';

const RECONNECT = {
  maxRetries: 100,
  initialBackoffMs: 100,
  factor: 2,
  maxBackoffMs: 5_000,
  jitter: true,
} as const;
/** Bytes the kernel has not taken yet on an open connection, beyond which frames are dropped, not buffered. */
const MAX_UNWRITTEN_BYTES = 16 * 1024 * 1024;

export interface PeerLinkOptions {
  clock: Clock;
  random: () => number;
  maxQueuedFrames: number;
  /** Called with each new connection, to read what the peer sends on it. */
  attach: (socket: net.Socket) => void;
  /** The first frame on each new connection, freshly sealed: it proves to the peer that this end holds the key. */
  hello: () => Buffer;
}

/**
 * The connection to one peer: opened when there is something to send, frames queued (up to a bound)
 * while it opens, and reopened after a failure with jittered exponential backoff (100 ms to 5 s) for as
 * long as frames wait. Frames written to a connection that then fails are lost; the protocols above resend.
 */
export class PeerLink {
  private socket: net.Socket | null = null;
  private open = false;
  private queue: Buffer[] = [];
  private failures = 0;
  private retry: CancelTimer | null = null;
  private closed = false;
  private corkedNow = false;
  private connections = 0;

  constructor(
    private readonly to: { host: string; port: number },
    private readonly options: PeerLinkOptions,
  ) {}

  /** Queues or writes `framed`; false when dropped. `bulk` skips the bound on what is not written yet. */
  send(framed: Buffer, bulk = false): boolean {
    if (this.closed) return false;
    if (this.open && this.socket) {
      if (!bulk && this.socket.writableLength > MAX_UNWRITTEN_BYTES) return false;
      this.corked(this.socket).write(framed);
      return true;
    }
    if (this.queue.length >= this.options.maxQueuedFrames) return false;
    this.queue.push(framed);
    if (!this.socket && !this.retry) this.connect();
    return true;
  }

  /**
   * The socket, holding what is written to it until the code at hand is done: the frames one step sends
   * a peer (an append and the answers to its forwarded writes) go out in one write, not a system call each.
   */
  private corked(socket: net.Socket): net.Socket {
    if (!this.corkedNow) {
      this.corkedNow = true;
      socket.cork();
      process.nextTick(() => {
        this.corkedNow = false;
        socket.uncork();
      });
    }
    return socket;
  }

  /**
   * The number of the connection frames are written to now: it goes up each time one closes, after which
   * frames written to the one before may not have arrived.
   */
  get connection(): number {
    return this.connections;
  }

  /** Bytes queued while the connection opens, or written to it and not yet taken by the kernel. */
  get unwritten(): number {
    const queued = this.queue.reduce((total, framed) => total + framed.length, 0);
    return queued + (this.open && this.socket ? this.socket.writableLength : 0);
  }

  close(): void {
    this.closed = true;
    this.retry?.();
    this.socket?.destroy();
    this.queue = [];
  }

  private connect(): void {
    this.retry = null;
    const socket = net.connect({ host: this.to.host, port: this.to.port, noDelay: true });
    this.socket = socket;
    socket.setKeepAlive(true, 10_000);
    this.options.attach(socket);
    socket.once('connect', () => {
      this.open = true;
      this.failures = 0;
      socket.write(this.options.hello());
      for (const framed of this.queue) socket.write(framed);
      this.queue = [];
    });
    socket.once('close', () => {
      this.connections += 1;
      this.socket = null;
      this.open = false;
      if (this.closed || this.queue.length === 0) return;
      this.failures += 1;
      this.retry = this.options.clock.setTimer(backoffMs(this.failures, RECONNECT, this.options.random), () =>
        this.connect(),
      );
    });
  }
}

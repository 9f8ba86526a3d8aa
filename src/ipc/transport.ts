import type { Server, Socket } from 'node:net';
import { IPCModule } from 'node-ipc';
import { decodeFrame, encodeFrame, REPLY_LIMITS, REQUEST_LIMITS } from './frame-codec.js';
import { FrameSplitter } from './frame-splitter.js';
import { credentialsOf, type PeerCredentials } from './peer-credentials.js';

/**
 * The one place that speaks node-ipc: the daemon's end. Everything above sees plain JSON messages on a
 * connection, so the wire library can change without touching the daemon or the client. The client's end,
 * a plain socket with the same framing, is socket-client.ts.
 *
 * The daemon runs node-ipc in raw-buffer mode, and both ends frame the bytes themselves (`JSON \f`, as
 * node-ipc did). node-ipc's own parser buffers without bound and dispatches on the peer's `type` through an event
 * emitter, so a frame naming `constructor`, or with no type at all, crashed the daemon.
 */
function rawIpc(id: string): IPCModule {
  const ipc = new IPCModule();
  ipc.config.id = id;
  ipc.config.silent = true;
  ipc.config.rawBuffer = true;
  // node-ipc decodes each chunk to a string and back to bytes; latin1 maps every byte to itself, so the
  // bytes sent arrive unchanged and invalid UTF-8 is refused rather than silently replaced.
  ipc.config.encoding = 'latin1';
  return ipc;
}

export interface ServerConnection {
  readonly id: number;
  /** Who connected, as the kernel says (never as the peer says); null where the platform cannot tell. */
  readonly peer: PeerCredentials | null;
  /** Throws only when `message` cannot be serialised. */
  send(message: unknown): void;
  onClose(listener: () => void): void;
  /** Bytes queued on the socket that the peer has not read yet: lets the daemon drop slow subscribers. */
  pendingBytes(): number;
  /** Flushes what is queued and ends the connection; nothing more it sends is read. */
  close(): void;
}

export interface TransportServer {
  close(): Promise<void>;
}

export interface ServeHandlers {
  /** A well-formed frame's message: JSON of bounded size and depth, not yet checked against any schema. */
  message(message: unknown, connection: ServerConnection): void;
  /** A frame could not be read (too large, not UTF-8, too deep, not JSON, not ours); its connection was closed. */
  refused(reason: string, connection: ServerConnection): void;
  /** Handling a frame threw: a bug. The connection was closed; the daemon and its other connections go on. */
  fault(error: Error, connection: ServerConnection): void;
}

interface Peer {
  connection: ServerConnection;
  splitter: FrameSplitter;
  closing: boolean;
  closeListeners: Array<() => void>;
}

export function serve(socketPath: string, handlers: ServeHandlers): Promise<TransportServer> {
  const ipc = rawIpc('sched-daemon');
  ipc.config.maxConnections = 10_000;
  const peers = new WeakMap<Socket, Peer>();
  let nextId = 1;

  const peerOf = (socket: Socket): Peer => {
    const known = peers.get(socket);
    if (known) return known;
    const peer: Peer = {
      splitter: new FrameSplitter(REQUEST_LIMITS.maxBytes),
      closing: false,
      closeListeners: [],
      connection: {
        id: nextId++,
        peer: credentialsOf(socket),
        send: (message) => {
          const frame = encodeFrame(message, REPLY_LIMITS);
          if (!socket.destroyed && !socket.writableEnded) ipc.server.emit(socket, frame);
        },
        onClose: (listener) => peer.closeListeners.push(listener),
        pendingBytes: () => socket.writableLength,
        // end() flushes what is queued (such as a last `stream:dropped`); a peer that never reads is cut off.
        close: () => {
          peer.closing = true;
          socket.end();
          setTimeout(() => socket.destroy(), 2_000).unref();
        },
      },
    };
    peers.set(socket, peer);
    return peer;
  };

  const receive = (peer: Peer, chunk: Buffer): void => {
    const split = peer.splitter.push(chunk);
    if (!split.ok) {
      peer.connection.close();
      handlers.refused(`a frame passed ${REQUEST_LIMITS.maxBytes} bytes`, peer.connection);
      return;
    }
    for (const frame of split.frames) {
      if (peer.closing) return;
      const decoded = decodeFrame(frame, REQUEST_LIMITS);
      if (!decoded.ok) {
        peer.connection.close();
        handlers.refused(decoded.reason, peer.connection);
        return;
      }
      handlers.message(decoded.message, peer.connection);
    }
  };

  return new Promise((resolve, reject) => {
    ipc.serve(socketPath, () => {
      ipc.server.on('data', (chunk: Buffer, socket: Socket) => {
        const peer = peerOf(socket);
        if (peer.closing) return;
        // Nothing a peer sends may throw out of here: it would end the daemon and every run in it.
        try {
          receive(peer, chunk);
        } catch (error) {
          peer.connection.close();
          handlers.fault(error as Error, peer.connection);
        }
      });
      // node-ipc's own 'close' event carries the socket's hadError flag, not the socket: listen on the socket.
      ipc.server.on('connect', (socket: Socket) => {
        const peer = peerOf(socket);
        socket.once('close', () => {
          try {
            if (!peer.closing && peer.splitter.holdsPartialFrame)
              handlers.refused('the connection closed in the middle of a frame', peer.connection);
            for (const listener of peer.closeListeners) listener();
          } catch (error) {
            handlers.fault(error as Error, peer.connection);
          }
        });
      });
      resolve({
        close: () =>
          new Promise<void>((done) => {
            for (const socket of ipc.server.sockets as Socket[]) socket.destroy();
            (ipc.server.server as Server).close(() => done());
          }),
      });
    });
    ipc.server.on('error', (error: Error) => reject(error));
    ipc.server.start();
  });
}

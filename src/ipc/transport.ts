import fs from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { decodeFrame, encodeFrame, REPLY_LIMITS, REQUEST_LIMITS } from './frame-codec.js';
import { FrameSplitter } from './frame-splitter.js';
import { credentialsOf, type PeerCredentials } from './peer-credentials.js';

/**
 * The daemon's end of the socket: a plain `node:net` server. Everything above sees plain JSON messages on
 * a connection. The client's end, a plain socket with the same framing, is socket-client.ts.
 *
 * Both ends frame the bytes themselves, `JSON \f` in a `{ type, data }` envelope (frame-codec.ts): the
 * bytes node-ipc put on the wire when the daemon used it, so clients of either kind read each other. Its
 * own parser buffered without bound and dispatched on the peer's `type` through an event emitter, and even
 * in raw-buffer mode it built a message object per reply and copied every chunk through a latin1 string.
 */
const MAX_CONNECTIONS = 10_000;

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
  const sockets = new Set<Socket>();
  let nextId = 1;

  const peerOf = (socket: Socket): Peer => {
    const peer: Peer = {
      splitter: new FrameSplitter(REQUEST_LIMITS.maxBytes),
      closing: false,
      closeListeners: [],
      connection: {
        id: nextId++,
        peer: credentialsOf(socket),
        send: (message) => {
          const frame = encodeFrame(message, REPLY_LIMITS);
          if (socket.destroyed || socket.writableEnded) return;
          // The replies of one group commit are all sent before the loop turns: one write for all of them.
          if (socket.writableCorked === 0) {
            socket.cork();
            process.nextTick(() => socket.uncork());
          }
          socket.write(frame);
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

  const accept = (socket: Socket): void => {
    const peer = peerOf(socket);
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => {
      if (peer.closing) return;
      // Nothing a peer sends may throw out of here: it would end the daemon and every run in it.
      try {
        receive(peer, chunk);
      } catch (error) {
        peer.connection.close();
        handlers.fault(error as Error, peer.connection);
      }
    });
    // A peer that vanishes (EPIPE, ECONNRESET) only ends its own connection; 'close' follows.
    socket.on('error', () => undefined);
    socket.once('close', () => {
      sockets.delete(socket);
      try {
        if (!peer.closing && peer.splitter.holdsPartialFrame)
          handlers.refused('the connection closed in the middle of a frame', peer.connection);
        for (const listener of peer.closeListeners) listener();
      } catch (error) {
        handlers.fault(error as Error, peer.connection);
      }
    });
  };

  return new Promise((resolve, reject) => {
    const server = createServer(accept);
    server.maxConnections = MAX_CONNECTIONS;
    // What is at the path is a socket the daemon's user left (socket-place.ts checked): a stale one.
    fs.rmSync(socketPath, { force: true });
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      // Accepting can fail later (EMFILE): the server goes on, as it did under node-ipc, which only logged it.
      server.on('error', () => undefined);
      resolve({
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

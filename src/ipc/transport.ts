import type { Socket } from 'node:net';
import { IPCModule } from 'node-ipc';

/**
 * The one place that speaks node-ipc. Everything above sees plain JSON messages on a connection, so the
 * wire library can change without touching the daemon or the client.
 */
const MESSAGE_EVENT = 'sched';

export interface ServerConnection {
  readonly id: number;
  send(message: unknown): void;
  onClose(listener: () => void): void;
  /** Bytes queued on the socket that the peer has not read yet: lets the daemon drop slow subscribers. */
  pendingBytes(): number;
  close(): void;
}

export interface TransportServer {
  close(): Promise<void>;
}

export function serve(
  socketPath: string,
  onMessage: (message: unknown, connection: ServerConnection) => void,
): Promise<TransportServer> {
  const ipc = new IPCModule();
  ipc.config.id = 'sched-daemon';
  ipc.config.silent = true;
  ipc.config.maxConnections = 10_000;
  const connections = new WeakMap<Socket, ServerConnection>();
  const closeListeners = new WeakMap<Socket, Array<() => void>>();
  let nextId = 1;

  const connectionOf = (socket: Socket): ServerConnection => {
    let connection = connections.get(socket);
    if (!connection) {
      const listeners: Array<() => void> = [];
      closeListeners.set(socket, listeners);
      connection = {
        id: nextId++,
        send: (message) => {
          if (!socket.destroyed) ipc.server.emit(socket, MESSAGE_EVENT, message);
        },
        onClose: (listener) => listeners.push(listener),
        pendingBytes: () => socket.writableLength,
        // end() flushes what is queued (such as a last `stream:dropped`); a peer that never reads is cut off.
        close: () => {
          socket.end();
          setTimeout(() => socket.destroy(), 2_000).unref();
        },
      };
      connections.set(socket, connection);
    }
    return connection;
  };

  return new Promise((resolve, reject) => {
    ipc.serve(socketPath, () => {
      ipc.server.on(MESSAGE_EVENT, (data: unknown, socket: Socket) => onMessage(data, connectionOf(socket)));
      ipc.server.on('close', (socket: Socket) => {
        for (const listener of closeListeners.get(socket) ?? []) listener();
      });
      resolve({
        close: () =>
          new Promise<void>((done) => {
            const server = ipc.server.server as import('node:net').Server;
            for (const socket of ipc.server.sockets as Socket[]) socket.destroy();
            server.close(() => done());
          }),
      });
    });
    ipc.server.on('error', (error: Error) => reject(error));
    ipc.server.start();
  });
}

export interface ClientConnection {
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  onClose(listener: () => void): void;
  close(): void;
}

/** Connects once, without node-ipc's endless retry: a missing daemon must be reported at once. */
export function connect(socketPath: string): Promise<ClientConnection> {
  const ipc = new IPCModule();
  ipc.config.id = `sched-client-${process.pid}`;
  ipc.config.silent = true;
  ipc.config.maxRetries = 0;
  ipc.config.stopRetrying = true;
  return new Promise((resolve, reject) => {
    let connected = false;
    ipc.connectTo('daemon', socketPath, () => {
      const peer = ipc.of.daemon!;
      const messageListeners: Array<(message: unknown) => void> = [];
      const closeListeners: Array<() => void> = [];
      peer.on('connect', () => {
        connected = true;
        resolve({
          send: (message) => peer.emit(MESSAGE_EVENT, message),
          onMessage: (listener) => messageListeners.push(listener),
          onClose: (listener) => closeListeners.push(listener),
          close: () => ipc.disconnect('daemon'),
        });
      });
      peer.on(MESSAGE_EVENT, (data: unknown) => {
        for (const listener of messageListeners) listener(data);
      });
      peer.on('error', (error: NodeJS.ErrnoException) => {
        if (!connected) reject(error);
      });
      peer.on('disconnect', () => {
        if (!connected) return;
        connected = false;
        for (const listener of closeListeners) listener();
      });
    });
  });
}

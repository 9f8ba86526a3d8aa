import { connect as connectSocket } from 'node:net';
import { decodeFrame, encodeFrame, REPLY_LIMITS, REQUEST_LIMITS } from './frame-codec.js';
import { FrameSplitter } from './frame-splitter.js';

export interface ClientConnection {
  /** Throws a SchedError when the daemon would refuse the message (too large or too deeply nested). */
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  onClose(listener: () => void): void;
  close(): void;
}

/**
 * Connects once to the daemon's socket: a missing daemon must be reported at once, never retried.
 *
 * A plain `node:net` socket, as the daemon's end is (transport.ts); both frame the bytes themselves
 * (frame-codec.ts). Loading node-ipc here, with the TLS and UDP modules it pulled in, was once the largest
 * part of an everyday command's own start-up.
 */
export function connect(socketPath: string): Promise<ClientConnection> {
  return new Promise((resolve, reject) => {
    const socket = connectSocket({ path: socketPath });
    const splitter = new FrameSplitter(REPLY_LIMITS.maxBytes);
    const messageListeners: Array<(message: unknown) => void> = [];
    const closeListeners: Array<() => void> = [];
    let connected = false;
    let closedHere = false;
    const disconnected = (): void => {
      if (!connected) return;
      connected = false;
      for (const listener of closeListeners) listener();
    };
    // A connection this end closes tells no listener: the one closing knows.
    const close = (): void => {
      closedHere = true;
      socket.destroy();
    };
    socket.on('connect', () => {
      connected = true;
      resolve({
        send: (message) => void socket.write(encodeFrame(message, REQUEST_LIMITS)),
        onMessage: (listener) => messageListeners.push(listener),
        onClose: (listener) => closeListeners.push(listener),
        close,
      });
    });
    socket.on('data', (chunk: Buffer) => {
      if (closedHere) return;
      const split = splitter.push(chunk);
      const decoded = split.ok ? split.frames.map((frame) => decodeFrame(frame, REPLY_LIMITS)) : [];
      for (const frame of decoded) {
        if (!frame.ok) break;
        for (const listener of messageListeners) listener(frame.message);
      }
      // A daemon that sends what cannot be read is treated as gone, so waiting requests fail.
      if (!split.ok || decoded.some((frame) => !frame.ok)) {
        disconnected();
        close();
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected) reject(error);
    });
    socket.on('close', () => {
      if (!closedHere) disconnected();
    });
  });
}

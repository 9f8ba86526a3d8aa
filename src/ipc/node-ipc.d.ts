// node-ipc 12 ships no types; this declares only the surface src/ipc/transport.ts uses, in raw-buffer mode.
declare module 'node-ipc' {
  interface IpcEmitter {
    on(event: string, listener: (...args: never[]) => void): void;
    /** In raw-buffer mode: writes `frame` to the socket as it is. */
    emit(frame: Buffer): void;
  }
  interface IpcServer {
    on(event: string, listener: (...args: never[]) => void): void;
    /** In raw-buffer mode: writes `frame` to `socket` as it is. */
    emit(socket: unknown, frame: Buffer): void;
    start(): void;
    stop(): void;
    server: unknown;
    sockets: unknown[];
  }
  export class IPCModule {
    config: {
      id: string;
      silent: boolean;
      rawBuffer: boolean;
      encoding: BufferEncoding;
      maxConnections: number;
      maxRetries: number;
      stopRetrying: boolean;
      retry: number;
    };
    server: IpcServer;
    of: Record<string, IpcEmitter>;
    serve(path: string, callback: () => void): void;
    connectTo(id: string, path: string, callback: () => void): void;
    disconnect(id: string): void;
  }
}

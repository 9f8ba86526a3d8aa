// node-ipc 12 ships no types; this declares only the surface src/ipc/transport.ts uses.
declare module 'node-ipc' {
  interface IpcEmitter {
    on(event: string, listener: (...args: never[]) => void): void;
    emit(event: string, data?: unknown): void;
  }
  interface IpcServer {
    on(event: string, listener: (...args: never[]) => void): void;
    emit(socket: unknown, event: string, data: unknown): void;
    start(): void;
    stop(): void;
    server: unknown;
    sockets: unknown[];
  }
  export class IPCModule {
    config: {
      id: string;
      silent: boolean;
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

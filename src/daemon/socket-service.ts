import fs from 'node:fs';
import { serve, type ServeHandlers, type TransportServer } from '../ipc/transport.js';
import { bindPrivately } from './private-file.js';
import type { Service } from './service.js';

/** The daemon's Unix socket: bound privately (0600) when started, closed and removed when stopped. */
export class SocketService implements Service {
  readonly name = 'socket';
  private server: TransportServer | null = null;

  constructor(
    private readonly socketPath: string,
    private readonly handlers: ServeHandlers,
  ) {}

  async start(): Promise<void> {
    this.server = await bindPrivately(() => serve(this.socketPath, this.handlers));
    fs.chmodSync(this.socketPath, 0o600);
  }

  async stop(): Promise<void> {
    await this.server?.close();
    fs.rmSync(this.socketPath, { force: true });
  }
}

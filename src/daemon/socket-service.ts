import fs from 'node:fs';
import { SchedError } from '../core/errors.js';
import { serve, type ServeHandlers, type TransportServer } from '../ipc/transport.js';
import { bindPrivately } from './private-file.js';
import type { Service } from './service.js';
import { checkSocketPath, prepareSocketFolder } from './socket-place.js';

export interface SocketAccess {
  /** `socket_mode`: 0600 unless others are meant to reach the daemon. */
  mode: number;
  /** `socket_group`'s gid, or null to leave the socket in the daemon's group. */
  gid: number | null;
}

/**
 * The daemon's Unix socket: bound privately (0600), then given its group and mode explicitly, so nobody
 * reaches it before it has them; closed and removed when stopped.
 */
export class SocketService implements Service {
  readonly name = 'socket';
  private server: TransportServer | null = null;

  constructor(
    private readonly socketPath: string,
    private readonly handlers: ServeHandlers,
    private readonly access: SocketAccess = { mode: 0o600, gid: null },
  ) {}

  async start(): Promise<void> {
    const { mode, gid } = this.access;
    prepareSocketFolder(this.socketPath, mode, gid);
    checkSocketPath(this.socketPath);
    this.server = await bindPrivately(() => serve(this.socketPath, this.handlers));
    // lchown: never through a link someone put there meanwhile; chmod then checks it is still a socket.
    if (gid !== null) giveToGroup(this.socketPath, gid);
    if (!fs.lstatSync(this.socketPath).isSocket())
      throw new Error(`${this.socketPath} is no longer a socket`);
    fs.chmodSync(this.socketPath, mode);
  }

  async stop(): Promise<void> {
    await this.server?.close();
    fs.rmSync(this.socketPath, { force: true });
  }
}

function giveToGroup(socketPath: string, gid: number): void {
  try {
    fs.lchownSync(socketPath, process.getuid!(), gid);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
    throw new SchedError(
      'VALIDATION_FAILED',
      `The daemon may not give its socket to group ${gid} (socket_group).`,
      {
        hint: 'Run the daemon as root, or as a user who is a member of that group.',
        details: { socketPath, gid },
      },
    );
  }
}

import { Command, Errors, type Interfaces } from '@oclif/core';
import { DaemonClient } from '../client/daemon-client.js';
import { classifyFailure, renderFailure, toErrorJson } from './failure.js';
import { hostTimeZone, type Viewer } from './format/time.js';

/**
 * What every sched command shares: `--json`, a lazily opened daemon connection, and one way of
 * reporting failures. `run()` returns its typed result so `--json` prints it as is; commands render
 * for people only when `!this.jsonEnabled()`.
 */
export abstract class SchedCommand extends Command {
  static override enableJsonFlag = true;

  private daemonClient: DaemonClient | undefined;

  /** The connection to this host's daemon, opened on first use and closed when the command ends. */
  protected async client(): Promise<DaemonClient> {
    if (this.daemonClient === undefined) {
      // The socket may be set in config.toml as well as in SCHED_SOCKET; both win over the default.
      const { clientSocketPath } = await import('../config/client-socket.js');
      this.daemonClient = await DaemonClient.connect(await clientSocketPath(process.env));
    }
    return this.daemonClient;
  }

  /** Who is looking, and when: instants are shown in the viewer's zone, relative to now. */
  protected viewer(): Viewer {
    return { zone: hostTimeZone(), now: Date.now() };
  }

  protected override async catch(error: Interfaces.CommandError): Promise<never> {
    // `this.exit()` works by throwing; it is an exit, not a failure.
    if (error instanceof Errors.ExitError) throw error;
    const failure = classifyFailure(
      error,
      `${this.config.bin} ${(this.id ?? '').replaceAll(':', ' ')}`.trim(),
    );
    if (this.jsonEnabled()) this.logJson({ error: toErrorJson(failure, new Date()) });
    else process.stderr.write(renderFailure(failure));
    if (failure.kind === 'bug' && this.jsonEnabled())
      process.stderr.write(`${failure.stack ?? failure.message}\n`);
    this.exit(failure.exitCode);
  }

  protected override async finally(error: Error | undefined): Promise<void> {
    this.daemonClient?.close();
    this.daemonClient = undefined;
    await super.finally(error);
  }
}

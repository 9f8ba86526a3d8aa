import { Command, Config, Errors, type Interfaces } from '@oclif/core';
import { SchedClient, type ClientTarget } from '../client/sched-client.js';
import type { RemoteFlags } from '../config/client-target.js';
import { SchedError } from '../core/errors.js';
import { classifyFailure, renderFailure, toErrorJson } from './failure.js';
import { hostTimeZone, type Viewer } from './format/time.js';
import { remoteFlags } from './remote-flags.js';

/** What oclif's parser gives for flags and args, by name. */
type Output = Record<string, unknown>;

/**
 * What every sched command shares: `--json`, `--remote` and its token and CA, a lazily opened daemon
 * connection (this host's socket, or a remote daemon's HTTPS API), and one way of reporting failures.
 * `run()` returns its typed result so `--json` prints it as is; commands render for people only when
 * `!this.jsonEnabled()`.
 */
export abstract class SchedCommand extends Command {
  static override enableJsonFlag = true;
  static override baseFlags = remoteFlags;

  /**
   * Set by a command that acts on this host itself (its processes, its files) rather than through a
   * daemon's requests: what it does, so that `--remote` is refused with that reason instead of the
   * command quietly acting here.
   */
  static localOnly: string | undefined;

  private daemonClient: SchedClient | undefined;
  /** The parse of the command's own argv by its own flags: init, the command and its connection all ask. */
  private ownParse: Promise<Interfaces.ParserOutput> | undefined;

  /**
   * oclif hands its loaded Config to `run`, and oclif's own `run` loads it all again before making the
   * command (package.json, the 200 KB manifest, every command's id): about 2 ms of each command. Given a
   * Config, the command runs with that one.
   */
  static override async run<T extends Command>(
    this: new (argv: string[], config: Config) => T,
    argv: string[] = process.argv.slice(2),
    opts?: Interfaces.LoadOptions,
  ): Promise<ReturnType<T['run']>> {
    if (!(opts instanceof Config)) return Command.run.call(this, argv, opts) as Promise<ReturnType<T['run']>>;
    const command = new this(argv, opts) as unknown as SchedCommand;
    if (!command.id) command.id = command.ctor.id = command.constructor.name.toLowerCase();
    return command._run();
  }

  /** The connection to the daemon, opened on first use and closed when the command ends. */
  protected async client(): Promise<SchedClient> {
    this.daemonClient ??= await SchedClient.connect(await this.clientTarget());
    return this.daemonClient;
  }

  /** Where requests go: --remote (or SCHED_REMOTE) with its token and CA, else this host's socket. */
  protected async clientTarget(): Promise<ClientTarget> {
    // Loaded here: the socket may be set in config.toml, which only a command that connects reads.
    const { clientTarget } = await import('../config/client-target.js');
    return clientTarget(await this.remoteFlags(), process.env);
  }

  /** Whether requests go to a remote daemon (--remote or SCHED_REMOTE), where this shell's directory means nothing. */
  protected async remote(): Promise<boolean> {
    const { remoteUrl } = await import('../config/client-target.js');
    return remoteUrl(await this.remoteFlags(), process.env) !== undefined;
  }

  /** Who is looking, and when: instants are shown in the viewer's zone, relative to now. */
  protected viewer(): Viewer {
    return { zone: hostTimeZone(), now: Date.now() };
  }

  override async init(): Promise<void> {
    await super.init();
    const localOnly = (this.ctor as typeof SchedCommand).localOnly;
    if (localOnly === undefined || !(await this.remote())) return;
    const command = `${this.config.bin} ${(this.id ?? '').replaceAll(':', ' ')}`.trim();
    throw new SchedError('VALIDATION_FAILED', `\`${command}\` ${localOnly}, so it takes no --remote.`, {
      hint: 'Run it on the daemon’s host, without --remote (and with SCHED_REMOTE unset there).',
    });
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

  protected override parse<F extends Output, B extends Output, A extends Output>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    if (argv !== undefined || (options !== undefined && options !== this.ctor))
      return super.parse(options, argv);
    this.ownParse ??= super.parse(options);
    return this.ownParse as Promise<Interfaces.ParserOutput<F, B, A>>;
  }

  /** The flags every command has for a remote daemon, as given (the command's own parse reads the rest). */
  private async remoteFlags(): Promise<RemoteFlags> {
    const { flags } = await this.parse(this.ctor);
    return flags as RemoteFlags;
  }
}

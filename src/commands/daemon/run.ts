import { Flags } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';
import { configFlags, configFlagValues } from '../../config/flags.js';

export default class DaemonRun extends SchedCommand {
  static override enableJsonFlag = false;
  static override description =
    'Run the scheduler daemon in the foreground until SIGTERM or SIGINT. Settings come from flags, then ' +
    'the environment, then config.toml (see `sched config show`). Logs are JSON lines on stdout.';
  static override examples = [
    '<%= config.bin %> daemon run',
    'SCHED_HOME=/srv/sched <%= config.bin %> daemon run --grace 2m --tz Europe/Berlin',
    '<%= config.bin %> daemon run --max-concurrent 4 --metrics 127.0.0.1:9464 --log-level debug',
  ];
  static override flags = {
    grace: Flags.string({
      summary: 'How long running jobs may finish after SIGTERM before they are killed.',
      helpValue: 'DURATION',
      default: '30s',
    }),
    durability: Flags.string({
      summary:
        'full: every acknowledged change is synced to disk first; relaxed: faster, may lose the last moments before a power cut.',
      options: ['full', 'relaxed'],
      default: 'full',
    }),
    quiet: Flags.boolean({ summary: 'Do not print a JSON line per scheduler event.' }),
    'retention-interval': Flags.string({
      summary: 'How often history is pruned (default 1h).',
      helpValue: 'DURATION',
      hidden: true,
    }),
    ...configFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonRun);
    const [{ Daemon }, { resolveLocations }, { parseDuration }, { logDaemonEvents }, { loadConfig }] =
      await Promise.all([
        import('../../daemon/daemon.js'),
        import('../../ipc/locations.js'),
        import('../../core/duration.js'),
        import('../../daemon/event-log.js'),
        import('../../config/load.js'),
      ]);
    const config = loadConfig(process.env, configFlagValues(flags));
    let stopped: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (stopped = resolve));
    const daemon = new Daemon({
      locations: { ...resolveLocations(process.env), socketPath: config.socket },
      version: this.config.version,
      shutdownGraceMs: parseDuration(flags.grace, '--grace'),
      defaultTimezone: config.timezone,
      durability: flags.durability as 'full' | 'relaxed',
      // The default store is the SQLite file in the home, which the daemon finds by itself.
      storeUrl: config.sources.store.kind === 'default' ? undefined : config.store,
      maxConcurrent: config.maxConcurrent ?? undefined,
      metricsAddress: config.metricsAddress ?? undefined,
      retention: {
        ...config.retention,
        ...(flags['retention-interval']
          ? { intervalMs: parseDuration(flags['retention-interval'], '--retention-interval') }
          : {}),
      },
      // A fault-injection hook for the crash tests; documented nowhere a user would look.
      crashBeforeReply: process.env.SCHED_TEST_CRASH_BEFORE_REPLY,
      onStopped: () => stopped(),
    });
    if (!flags.quiet)
      logDaemonEvents(daemon.events, (line) => process.stdout.write(`${line}\n`), config.logLevel);
    await daemon.start();
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals += 1;
      if (signals > 1) return daemon.hurry();
      void daemon.stop(`received ${signal}`).then(() => stopped());
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    await finished;
  }
}

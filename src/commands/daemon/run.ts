import { Command, Flags } from '@oclif/core';

export default class DaemonRun extends Command {
  static override description = 'Run the scheduler daemon in the foreground until SIGTERM or SIGINT.';
  static override examples = [
    '<%= config.bin %> daemon run',
    'SCHED_HOME=/srv/sched <%= config.bin %> daemon run --grace 2m',
  ];
  static override flags = {
    grace: Flags.string({
      description: 'how long running jobs may finish after SIGTERM before they are killed',
      default: '30s',
    }),
    tz: Flags.string({ description: 'default time zone for jobs added without --tz (IANA name)' }),
    quiet: Flags.boolean({ description: 'do not print a JSON line per scheduler event' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonRun);
    const [
      { Daemon },
      { resolveLocations },
      { parseDuration },
      { assertTimezone },
      { logDaemonEvents },
      { SchedError },
    ] = await Promise.all([
      import('../../daemon/daemon.js'),
      import('../../ipc/locations.js'),
      import('../../core/duration.js'),
      import('../../core/schedule/timezone.js'),
      import('../../daemon/event-log.js'),
      import('../../core/errors.js'),
    ]);
    const defaultTimezone = flags.tz ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    const locations = resolveLocations(process.env);
    try {
      assertTimezone(defaultTimezone);
      const daemon = new Daemon({
        locations,
        version: this.config.version,
        shutdownGraceMs: parseDuration(flags.grace, '--grace'),
        defaultTimezone,
      });
      if (!flags.quiet) logDaemonEvents(daemon.events, (line) => process.stdout.write(`${line}\n`));
      await daemon.start();
      await new Promise<void>((resolve) => {
        let signals = 0;
        const onSignal = (signal: NodeJS.Signals) => {
          signals += 1;
          if (signals > 1) return daemon.hurry();
          void daemon.stop(`received ${signal}`).then(resolve);
        };
        process.on('SIGTERM', onSignal);
        process.on('SIGINT', onSignal);
      });
    } catch (error) {
      if (error instanceof SchedError) {
        process.stderr.write(`Error: ${error.message}\n${error.hint ? `Hint: ${error.hint}\n` : ''}`);
        this.exit(error.exitCode);
      }
      throw error;
    }
  }
}

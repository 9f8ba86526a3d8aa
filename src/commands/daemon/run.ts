import { Flags } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';

export default class DaemonRun extends SchedCommand {
  static override enableJsonFlag = false;
  static override description = 'Run the scheduler daemon in the foreground until SIGTERM or SIGINT.';
  static override examples = [
    '<%= config.bin %> daemon run',
    'SCHED_HOME=/srv/sched <%= config.bin %> daemon run --grace 2m --tz Europe/Berlin',
  ];
  static override flags = {
    grace: Flags.string({
      summary: 'How long running jobs may finish after SIGTERM before they are killed.',
      helpValue: 'DURATION',
      default: '30s',
    }),
    tz: Flags.string({
      summary: 'Default time zone for jobs added without --tz (IANA name).',
      helpValue: 'ZONE',
    }),
    durability: Flags.string({
      summary:
        'full: every acknowledged change is synced to disk first; relaxed: faster, may lose the last moments before a power cut.',
      options: ['full', 'relaxed'],
      default: 'full',
    }),
    quiet: Flags.boolean({ summary: 'Do not print a JSON line per scheduler event.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonRun);
    const [{ Daemon }, { resolveLocations }, { parseDuration }, { assertTimezone }, { logDaemonEvents }] =
      await Promise.all([
        import('../../daemon/daemon.js'),
        import('../../ipc/locations.js'),
        import('../../core/duration.js'),
        import('../../core/schedule/timezone.js'),
        import('../../daemon/event-log.js'),
      ]);
    const defaultTimezone = flags.tz ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    assertTimezone(defaultTimezone);
    let stopped: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (stopped = resolve));
    const daemon = new Daemon({
      locations: resolveLocations(process.env),
      version: this.config.version,
      shutdownGraceMs: parseDuration(flags.grace, '--grace'),
      defaultTimezone,
      durability: flags.durability as 'full' | 'relaxed',
      // A fault-injection hook for the crash tests; documented nowhere a user would look.
      crashBeforeReply: process.env.SCHED_TEST_CRASH_BEFORE_REPLY,
      onStopped: () => stopped(),
    });
    if (!flags.quiet) logDaemonEvents(daemon.events, (line) => process.stdout.write(`${line}\n`));
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

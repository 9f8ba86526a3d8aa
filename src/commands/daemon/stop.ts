import fs from 'node:fs';
import { Flags } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';
import { formatDuration, parseDuration } from '../../core/duration.js';
import { SchedError } from '../../core/errors.js';

export interface DaemonStopResult {
  stopped: true;
  pid: number;
  /** How long the daemon took to exit after it was asked to stop. */
  waitedMs: number;
}

export default class DaemonStop extends SchedCommand {
  static override localOnly = "stops this host's daemon process and waits for it to be gone";
  static override summary = "Stop this host's daemon and wait until its process is gone.";
  static override description =
    'The daemon stops firing, lets running jobs finish within the grace period (its --grace, or --grace ' +
    'here), then kills what is left and records it as cancelled. Under systemd, prefer `systemctl stop sched`: ' +
    'a daemon stopped this way exits cleanly, so Restart=on-failure does not start it again.';

  static override examples = [
    { description: 'Stop the daemon.', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'Give running jobs 5 seconds, and wait at most a minute.',
      command: '<%= config.bin %> <%= command.id %> --grace 5s --wait 1m',
    },
  ];

  static override flags = {
    grace: Flags.string({
      summary: "How long running jobs may finish before they are killed (default: the daemon's --grace).",
      helpValue: 'DURATION',
    }),
    wait: Flags.string({
      summary: 'How long to wait for the daemon process to exit.',
      helpValue: 'DURATION',
      default: '2m',
    }),
  };

  async run(): Promise<DaemonStopResult> {
    const { flags } = await this.parse(DaemonStop);
    const graceMs = flags.grace === undefined ? undefined : parseDuration(flags.grace, '--grace');
    const waitMs = parseDuration(flags.wait, '--wait');
    const client = await this.client();
    const { pid } = await client.call('daemon.stop', { graceMs });
    const asked = Date.now();
    if (!this.jsonEnabled()) process.stderr.write(`Stopping the daemon (pid ${pid})…\n`);
    while (isRunning(pid)) {
      if (Date.now() - asked > waitMs) {
        throw new SchedError(
          'INVALID_STATE',
          `The daemon (pid ${pid}) is still running ${formatDuration(waitMs)} after it was asked to stop.`,
          {
            hint: `It is waiting for running jobs to finish. Wait longer (--wait), stop them now with --grace 0s, or kill -TERM ${pid} twice.`,
            details: { pid, waitMs },
          },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const waitedMs = Date.now() - asked;
    if (!this.jsonEnabled()) this.log(`Stopped the daemon (pid ${pid}) in ${formatDuration(waitedMs)}.`);
    return { stopped: true, pid, waitedMs };
  }
}

/** Whether `pid` still runs. A zombie has exited (its parent just has not reaped it yet). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    // Without /proc (macOS) signal 0 succeeding is all we can know; with it, the process just went.
    return !fs.existsSync('/proc/self/stat');
  }
}

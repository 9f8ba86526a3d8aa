import { SchedCommand } from '../../cli/base-command.js';
import { formatInstant } from '../../cli/format/time.js';
import { formatDuration } from '../../core/duration.js';
import type { DaemonStatus } from '../../ipc/protocol.js';

export default class DaemonStatusCommand extends SchedCommand {
  static override summary = "Show whether this host's daemon is running, and what it holds.";
  static override description =
    'Exits with 7 when no daemon answers on the socket, so scripts can check for one.';

  static override examples = [
    { description: 'Is the daemon up?', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'The daemon of a test home, as JSON.',
      command: 'SCHED_HOME=/tmp/sched-test <%= config.bin %> <%= command.id %> --json',
    },
  ];

  async run(): Promise<DaemonStatus> {
    await this.parse(DaemonStatusCommand);
    const client = await this.client();
    const status = await client.call('daemon.status', {});

    if (!this.jsonEnabled()) {
      const viewer = this.viewer();
      const fields: [string, string][] = [
        ['Daemon', `running, pid ${status.pid}, version ${status.version}, node ${status.node}`],
        [
          'Started',
          `${formatInstant(status.startedAt, viewer.zone)} (up ${formatDuration(status.now - status.startedAt)})`,
        ],
        ['Home', status.home],
        ['Socket', status.socketPath],
        ['Store', status.store],
        ['Jobs', `${status.jobs.active} active, ${status.jobs.paused} paused`],
        ['Running', `${status.runningRuns} run${status.runningRuns === 1 ? '' : 's'}`],
        ['Commands', describeCommands(status.commands)],
      ];
      for (const [label, value] of fields) this.log(`${`${label}:`.padEnd(9)} ${value}`);
    }
    return status;
  }
}

/** "3 alive, 2 waiting for a slot (max_children 5000)": a run that waits shows as running elsewhere. */
function describeCommands({ alive, waiting, maxChildren }: DaemonStatus['commands']): string {
  const waits = waiting === 0 ? '' : `, ${waiting} waiting for a slot`;
  return `${alive} alive${waits} (max_children ${maxChildren})`;
}

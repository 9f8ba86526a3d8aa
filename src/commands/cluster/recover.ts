import os from 'node:os';
import { Flags } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';
import type { ForcedRecoveryResult } from '../../recovery/forced-recovery.js';

export default class ClusterRecover extends SchedCommand {
  static override localOnly = "rewrites the consensus state of this host's stopped daemon";
  static override summary =
    'Force the voters of a peer cluster that lost its majority for good (the daemon stopped; --force).';
  static override description = `Only for a peer cluster that lost a majority of its voters for good (hosts destroyed, disks gone): with no majority it elects no leader and takes no writes, and no voter can be added or removed. On each survivor, with its daemon stopped, run this with the same --voters (the survivors, this one included), then start the daemons again. The survivors then elect a leader among themselves (the first election needs every one of them, so the one elected holds every write any of them applied) and take writes again; add new hosts with --join and \`sched cluster join\`.

Writes committed only on the lost nodes may be lost, and a lost node must never be started again with its old state: wipe its home and add it back as a new member. The warning goes to stderr, the daemon says so in its log at every start until its log holds the new voters, and the audit records the recovery (cluster.recover). Without --force, nothing is changed. Needs no running daemon; refused while this home's daemon runs.`;

  static override examples = [
    {
      description: 'Two of five hosts survived: on each of them, with its daemon stopped.',
      command: [
        '<%= config.bin %> daemon stop',
        '<%= config.bin %> <%= command.id %> --force --voters 10.0.0.1:7946,10.0.0.2:7946',
        'systemctl start sched',
      ].join('\n'),
    },
  ];

  static override flags = {
    voters: Flags.string({
      summary:
        'The survivors, this node included, comma-separated (host:port, as `sched cluster status` lists them).',
      helpValue: 'HOST:PORT,...',
      required: true,
    }),
    force: Flags.boolean({
      summary: 'Yes, force them: writes committed only on the other nodes may be lost.',
      default: false,
    }),
  };

  async run(): Promise<ForcedRecoveryResult> {
    const { flags } = await this.parse(ClusterRecover);
    const [{ resolveLocations }, { commaList }, { recoverByForce, FORCED_RECOVERY_WARNING }] =
      await Promise.all([
        import('../../ipc/locations.js'),
        import('../../config/comma-list.js'),
        import('../../recovery/forced-recovery.js'),
      ]);
    const { home, lockPath } = resolveLocations(process.env);
    const result = recoverByForce({
      home,
      homeLockPath: lockPath,
      voters: commaList(flags.voters),
      force: flags.force,
      by: os.userInfo().username,
      now: Date.now(),
    });
    // Even with --json: the warning is for the person at the terminal, whatever reads stdout.
    process.stderr.write(`${FORCED_RECOVERY_WARNING}\n`);
    if (!this.jsonEnabled()) {
      this.log(
        `Forced the voters of ${result.node} to ${result.voters.join(', ')} (term ${result.term}; its log ends at index ${result.lastIndex}, term ${result.lastTerm}).`,
      );
      this.log(
        'Do the same on every other survivor, then start the daemons: they elect a leader once all of them are up.',
      );
    }
    return result;
  }
}

import { Args } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';
import { parsePeerAddress } from '../../core/peer/peer-address.js';
import type { VotersChanged } from '../../ipc/protocol.js';

export default class ClusterLeave extends SchedCommand {
  static override summary =
    'Remove a voter from this peer cluster: this node, or the one named (admins only).';
  static override description = `Peer mode. Run on any member; the leader removes the voter (default: the node this command runs on) and answers once the new voters are committed. From then on it does not vote and gets no shards: its daemon can be stopped without the cluster losing its majority. While it runs it keeps following the log as a learner, and \`sched cluster join\` makes it a voter again.

Refused, with nothing changed, while an earlier change is not committed, for a node that is not a voter, for the last voter, and when the voters left would not have a live majority. Admins only; audited (cluster.leave).`;

  static override examples = [
    { description: 'Take this host out before retiring it.', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'Remove a host that died for good.',
      command: '<%= config.bin %> <%= command.id %> 10.0.0.3:7946',
    },
  ];

  static override args = {
    member: Args.string({
      description: 'The voter to remove, host:port as `sched cluster status` lists it (default: this node).',
      required: false,
    }),
  };

  async run(): Promise<VotersChanged> {
    const { args } = await this.parse(ClusterLeave);
    if (args.member !== undefined) parsePeerAddress(args.member);
    const client = await this.client();
    const result = await client.call(
      'cluster.leave',
      args.member === undefined ? {} : { member: args.member },
    );
    if (!this.jsonEnabled())
      this.log(
        `${result.member} is no longer a voter. Voters: ${result.voters.join(', ')} (leader ${result.leader}).`,
      );
    return result;
  }
}

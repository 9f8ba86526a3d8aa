import { Args } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';
import { parsePeerAddress } from '../../core/peer/peer-address.js';
import type { VotersChanged } from '../../ipc/protocol.js';

export default class ClusterJoin extends SchedCommand {
  static override summary = 'Make a new daemon a voter of this peer cluster (admins only).';
  static override description = `Peer mode. First start the new host's daemon with --join (a member of this cluster, e.g. \`sched daemon run --join 10.0.0.1:7946 --bind 10.0.0.4:7946 --cluster-key-file FILE\`): it never stands for election or forms a cluster of its own, and it follows the log as a learner. Then run this on any member, naming the new one by its peer address: the leader checks that gossip sees it alive, lets it catch up with the log, and adds it to the voters. Answers once the new voters are committed; from then on the new node votes, replicates every job and may be given shards.

Voters change one at a time: this is refused, and nothing is changed, while an earlier change is not committed, when the new node is not alive, already a voter, or behind, or when too few of the voters would be alive for a majority. Admins only; audited (cluster.join).`;

  static override examples = [
    {
      description: 'Add the host started with --join --bind 10.0.0.4:7946.',
      command: '<%= config.bin %> <%= command.id %> 10.0.0.4:7946',
    },
  ];

  static override args = {
    member: Args.string({
      description: 'The new member’s peer address, host:port (its --bind, or --advertise).',
      required: true,
    }),
  };

  async run(): Promise<VotersChanged> {
    const { args } = await this.parse(ClusterJoin);
    parsePeerAddress(args.member);
    const client = await this.client();
    const result = await client.call('cluster.join', { member: args.member });
    if (!this.jsonEnabled())
      this.log(`${result.member} is a voter. Voters: ${result.voters.join(', ')} (leader ${result.leader}).`);
    return result;
  }
}

import { SchedCommand } from '../../cli/base-command.js';
import { renderClusterStatus } from '../../cli/format/cluster-status.js';
import type { ClusterStatus } from '../../ipc/protocol.js';

export default class ClusterStatusCommand extends SchedCommand {
  static override summary = 'Show the daemons of the cluster, its coordinator and who owns how many shards.';
  static override description = `As this host's daemon sees the cluster: the mode, the coordinator and the term of the shard map in force (the fencing token), and every node with its host, whether it is alive, its shards, its load, how old its last heartbeat is, its version and labels. A daemon on its own SQLite store is a cluster of one, in mode single.

Exits with 7 when no daemon answers on the socket.`;

  static override examples = [
    { description: 'Who is in the cluster?', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'The coordinator, for a script.',
      command: "<%= config.bin %> <%= command.id %> --json | jq -r '.coordinator'",
    },
  ];

  async run(): Promise<ClusterStatus> {
    await this.parse(ClusterStatusCommand);
    const client = await this.client();
    const status = await client.call('cluster.status', {});
    if (!this.jsonEnabled()) this.log(renderClusterStatus(status));
    return status;
  }
}

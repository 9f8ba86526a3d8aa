import { SchedCommand } from '../../../cli/base-command.js';
import { renderClusterKeyring } from '../../../cli/format/cluster-keyring.js';
import type { ClusterKeyringView } from '../../../ipc/protocol.js';

export default class ClusterKeysList extends SchedCommand {
  static override summary = 'List this host’s cluster keys by fingerprint, the primary first.';
  static override description = `Peer mode: the keys this host's daemon opens peer messages with, each named by its fingerprint (the first 8 hex digits of the SHA-256 of its bytes; the key itself is never shown), which one seals what it sends (the primary), and how many of at most 16. Run it on every member to see where a rotation stands: the rings agree when every member lists the same fingerprints and the same primary. Admins only.`;

  static override examples = [
    { description: 'This host’s keys.', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'The primary, for a script.',
      command: "<%= config.bin %> <%= command.id %> --json | jq -r '.keys[0].fingerprint'",
    },
  ];

  async run(): Promise<ClusterKeyringView> {
    await this.parse(ClusterKeysList);
    const client = await this.client();
    const ring = await client.call('cluster.keys.list', {});
    if (!this.jsonEnabled()) this.log(renderClusterKeyring(ring));
    return ring;
  }
}

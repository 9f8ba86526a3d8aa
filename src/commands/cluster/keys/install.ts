import { ClusterKeyChangeCommand } from '../../../cli/cluster-key-change.js';
import { keyArgs } from '../../../cli/cluster-key-input.js';
import type { ClusterKeyChange } from '../../../ipc/protocol.js';

export default class ClusterKeysInstall extends ClusterKeyChangeCommand {
  static override summary =
    'Add a key to this host’s cluster keyring: it opens peer messages, the primary still seals them.';

  static override examples = [
    {
      description: 'Step 1 of a rotation, on every member: install the new key.',
      command: '<%= config.bin %> <%= command.id %> --from-file /etc/sched/new-cluster.key',
    },
    {
      description: 'The key from standard input.',
      command: 'gpg --decrypt cluster-2.key.gpg | <%= config.bin %> <%= command.id %> --from-file -',
    },
  ];

  static override args = keyArgs;

  protected readonly action = 'install';

  protected said(change: ClusterKeyChange): string {
    if (!change.changed)
      return `Key ${change.fingerprint} was installed on this host already; nothing changed.`;
    return `Installed key ${change.fingerprint} on this host: it opens messages now. Install it on every member, then make it primary on every member (sched cluster keys use).`;
  }
}

import { ClusterKeyChangeCommand } from '../../../cli/cluster-key-change.js';
import { keyArgs } from '../../../cli/cluster-key-input.js';
import type { ClusterKeyChange } from '../../../ipc/protocol.js';

export default class ClusterKeysRemove extends ClusterKeyChangeCommand {
  static override summary =
    'Drop a key from this host’s cluster keyring: messages sealed with it no longer open here.';

  static override examples = [
    {
      description: 'Step 3 of a rotation, once every member uses the new key.',
      command: '<%= config.bin %> <%= command.id %> --from-file /etc/sched/old-cluster.key',
    },
  ];

  static override args = keyArgs;

  protected readonly action = 'remove';

  protected said(change: ClusterKeyChange): string {
    if (!change.changed) return `Key ${change.fingerprint} was not installed on this host; nothing changed.`;
    return `Removed key ${change.fingerprint} from this host. Remove it on every member.`;
  }
}

import { ClusterKeyChangeCommand } from '../../../cli/cluster-key-change.js';
import { keyArgs } from '../../../cli/cluster-key-input.js';
import type { ClusterKeyChange } from '../../../ipc/protocol.js';

export default class ClusterKeysUse extends ClusterKeyChangeCommand {
  static override summary =
    'Make an installed key this host’s primary: what this host sends to its peers is sealed with it.';

  static override examples = [
    {
      description: 'Step 2 of a rotation, once the new key is installed on every member.',
      command: '<%= config.bin %> <%= command.id %> --from-file /etc/sched/new-cluster.key',
    },
  ];

  static override args = keyArgs;

  protected readonly action = 'use';

  protected said(change: ClusterKeyChange): string {
    if (!change.changed)
      return `Key ${change.fingerprint} was the primary on this host already; nothing changed.`;
    return `Key ${change.fingerprint} is the primary on this host now; the old primary still opens messages. Once every member uses it, remove the old key on every member (sched cluster keys remove).`;
  }
}

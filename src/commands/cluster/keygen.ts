import { randomBytes } from 'node:crypto';
import { SchedCommand } from '../../cli/base-command.js';
import { isClusterKey } from '../../core/peer/cluster-keyring.js';

export default class ClusterKeygen extends SchedCommand {
  static override localOnly = 'prints a key made on this machine, for the key file of each host';
  static override summary = 'Print a new cluster key, to seal the traffic between peer daemons.';
  static override description = `Prints 32 random bytes from the system's CSPRNG in base64: an AES-256-GCM key for the traffic between daemons federated as peers. Redirected to a file, the output is a key file as it is (one key per line, the primary first); copy the same file to every host, readable by root only.

No --json: the key is the output, and a secret is not put in JSON. Needs no daemon.`;

  static override enableJsonFlag = false;

  static override examples = [
    {
      description: 'Make the key file of a new cluster.',
      command: '(umask 077; <%= config.bin %> <%= command.id %> > /etc/sched/cluster.key)',
    },
  ];

  async run(): Promise<void> {
    await this.parse(ClusterKeygen);
    const key = randomBytes(32).toString('base64');
    if (!isClusterKey(key)) throw new Error('a fresh key is not in the cluster key format');
    this.log(key);
  }
}

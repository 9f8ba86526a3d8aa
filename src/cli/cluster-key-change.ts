import { SchedCommand } from './base-command.js';
import { clusterKeyInput, KEY_CHANGE_HELP, keyFlags } from './cluster-key-input.js';
import { renderClusterKeyring } from './format/cluster-keyring.js';
import type { ClusterKeyChange } from '../ipc/protocol.js';

/**
 * What `sched cluster keys install|use|remove` share: the key from an argument or a file, one request to
 * this host's daemon, and the ring it left shown by fingerprint. Each says only what its change means.
 */
export abstract class ClusterKeyChangeCommand extends SchedCommand {
  static override localOnly = 'changes the cluster keyring of the daemon on this host';
  static override description = KEY_CHANGE_HELP;
  // Each subclass names `args = keyArgs` itself: oclif reads a command's args from its own statics only.
  static override flags = keyFlags;

  protected abstract readonly action: ClusterKeyChange['action'];

  /** One sentence on what the change did on this host (or that there was nothing to do). */
  protected abstract said(change: ClusterKeyChange): string;

  async run(): Promise<ClusterKeyChange> {
    const { args, flags } = await this.parse(this.ctor as typeof ClusterKeyChangeCommand);
    const key = clusterKeyInput((args as { key?: string }).key, flags['from-file']);
    const client = await this.client();
    const change = await client.call(`cluster.keys.${this.action}`, { key });
    if (!this.jsonEnabled()) this.log(`${this.said(change)}\n\n${renderClusterKeyring(change)}`);
    return change;
  }
}

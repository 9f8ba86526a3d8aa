import type { Command } from '@oclif/core';
import { SchedCommand } from './base-command.js';
import { clusterKeyInput, KEY_CHANGE_HELP, keyArgs, keyFlags } from './cluster-key-input.js';
import { renderClusterKeyring } from './format/cluster-keyring.js';
import type { ClusterKeyChange } from '../ipc/protocol.js';

type Action = ClusterKeyChange['action'];

/** What each change did on this host, or that there was nothing to do, in one sentence. */
const SAID: Record<Action, { changed: string; unchanged: string }> = {
  install: {
    changed:
      'Installed key {key} on this host: it opens messages now. Install it on every member, then make it primary on every member (sched cluster keys use).',
    unchanged: 'Key {key} was installed on this host already; nothing changed.',
  },
  use: {
    changed:
      'Key {key} is the primary on this host now; the old primary still opens messages. Once every member uses it, remove the old key on every member (sched cluster keys remove).',
    unchanged: 'Key {key} was the primary on this host already; nothing changed.',
  },
  remove: {
    changed: 'Removed key {key} from this host. Remove it on every member.',
    unchanged: 'Key {key} was not installed on this host; nothing changed.',
  },
};

/** A command's example: the step of a rotation it is, with the key read from a file. */
export function keyChangeExample(description: string, file: string): Command.Example {
  return { description, command: `<%= config.bin %> <%= command.id %> --from-file ${file}` };
}

/**
 * What `sched cluster keys install|use|remove` share: the key from an argument or a file, one request to
 * this host's daemon, and the ring it left shown by fingerprint.
 */
export abstract class ClusterKeyChangeCommand extends SchedCommand {
  static override localOnly = 'changes the cluster keyring of the daemon on this host';
  static override description = KEY_CHANGE_HELP;
  static override flags = keyFlags;

  protected abstract readonly action: Action;

  async run(): Promise<ClusterKeyChange> {
    const { args, flags } = await this.parse(this.ctor as typeof ClusterKeyChangeCommand);
    const key = clusterKeyInput((args as { key?: string }).key, flags['from-file']);
    const client = await this.client();
    const change = await client.call(`cluster.keys.${this.action}`, { key });
    if (!this.jsonEnabled()) {
      const sentence = SAID[this.action][change.changed ? 'changed' : 'unchanged'];
      this.log(`${sentence.replace('{key}', change.fingerprint)}\n\n${renderClusterKeyring(change)}`);
    }
    return change;
  }
}

/** The command of one change: all three differ only in what they ask the daemon for and say of it. */
export function keyChangeCommand(action: Action, summary: string, examples: Command.Example[]) {
  return class extends ClusterKeyChangeCommand {
    static override summary = summary;
    static override examples = examples;
    // oclif reads a command's args from its own statics only, so each class names them.
    static override args = keyArgs;
    protected readonly action = action;
  };
}

import { Flags } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';
import type { KeyRotationResult } from '../../ipc/protocol.js';

export default class KeyRotate extends SchedCommand {
  static override summary = 'Seal every stored secret under a new key, while jobs go on running.';
  static override description =
    'Env values, HTTP header values and payloads are stored encrypted (AES-256-GCM) under the key in the ' +
    'key file (secret.key in the home, or the key_file setting). This adds a new key to the file, re-seals ' +
    'every job’s secrets under it, and only then drops the old key, so a rotation stopped half way loses ' +
    'nothing: the next start or rotation finishes it. In a federation every daemon must read the same key ' +
    'file (one file on shared storage, which the others read again within seconds): --shared-file says so. ' +
    'Admins only; audited.';

  static override examples = [
    { description: 'Rotate the key.', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'Rotate the key of a federation whose daemons all read one key file.',
      command: '<%= config.bin %> <%= command.id %> --shared-file',
    },
  ];

  static override flags = {
    'shared-file': Flags.boolean({
      summary:
        'Every daemon sharing the store reads this same key file (required where daemons share a PostgreSQL store).',
      default: false,
    }),
  };

  async run(): Promise<KeyRotationResult> {
    const { flags } = await this.parse(KeyRotate);
    const client = await this.client();
    const result = await client.call('key.rotate', { sharedFile: flags['shared-file'] });
    if (!this.jsonEnabled()) {
      const retired = result.retired.length === 0 ? '' : `; dropped ${result.retired.join(', ')}`;
      this.log(
        `Secrets are sealed under key ${result.key}: re-sealed ${result.resealed} of ${result.jobs} jobs holding secrets${retired}.`,
      );
    }
    return result;
  }
}

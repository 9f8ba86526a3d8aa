import { SchedCommand } from '../../cli/base-command.js';
import type { KeyRotationResult } from '../../ipc/protocol.js';

export default class KeyRotate extends SchedCommand {
  static override summary = 'Seal every stored secret under a new key, while jobs go on running.';
  static override description =
    'Env values, HTTP header values and payloads are stored encrypted (AES-256-GCM) under the key in the ' +
    'key file (secret.key in the home, or the key_file setting). This adds a new key to the file, re-seals ' +
    'every job’s secrets under it, and only then drops the old key, so a rotation stopped half way loses ' +
    'nothing: the next start or rotation finishes it. In a federation every daemon must read the same key ' +
    'file (a shared file: the others pick the new key up within seconds). Admins only; audited.';

  static override examples = [
    { description: 'Rotate the key.', command: '<%= config.bin %> <%= command.id %>' },
  ];

  async run(): Promise<KeyRotationResult> {
    await this.parse(KeyRotate);
    const client = await this.client();
    const result = await client.call('key.rotate', {});
    if (!this.jsonEnabled()) {
      const retired = result.retired.length === 0 ? '' : `; dropped ${result.retired.join(', ')}`;
      this.log(
        `Secrets are sealed under key ${result.key}: re-sealed ${result.resealed} of ${result.jobs} jobs${retired}.`,
      );
    }
    return result;
  }
}

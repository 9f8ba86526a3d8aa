import { Args } from '@oclif/core';
import type { ApiToken } from '../../core/access/api-token.js';
import { SchedCommand } from '../../cli/base-command.js';

export default class TokenRevoke extends SchedCommand {
  static override summary = 'Revoke an API token: its next request is refused (401). Admins only; audited.';

  static override examples = ['<%= config.bin %> <%= command.id %> ci'];

  static override args = {
    name: Args.string({ description: 'The token’s name, as `sched token ls` shows it.', required: true }),
  };

  async run(): Promise<ApiToken> {
    const { args } = await this.parse(TokenRevoke);
    const client = await this.client();
    const revoked = await client.call('token.revoke', { name: args.name });
    if (!this.jsonEnabled()) this.log(`Revoked token ${revoked.name}.`);
    return revoked;
  }
}

import type { ApiToken } from '../../core/access/api-token.js';
import { SchedCommand } from '../../cli/base-command.js';
import { renderTable } from '../../cli/format/table.js';
import { formatInstant } from '../../cli/format/time.js';

export default class TokenLs extends SchedCommand {
  static override summary =
    'List the API tokens not revoked: name, role, owner, created, expires, last used.';
  static override description =
    'The tokens themselves are never shown again, nor stored: only their hashes are. Admins only.';

  static override examples = ['<%= config.bin %> <%= command.id %>'];

  async run(): Promise<{ items: ApiToken[] }> {
    await this.parse(TokenLs);
    const client = await this.client();
    const result = await client.call('token.list', {});
    if (!this.jsonEnabled()) {
      const { zone } = this.viewer();
      const when = (at: number | null, none: string) => (at === null ? none : formatInstant(at, zone));
      this.log(
        renderTable(
          ['NAME', 'ROLE', 'OWNER', 'CREATED', 'EXPIRES', 'LAST USED'].map((header) => ({ header })),
          result.items.map((token) => [
            token.name,
            token.role,
            token.owner,
            when(token.createdAt, '-'),
            when(token.expiresAt, 'never'),
            when(token.lastUsedAt, 'never'),
          ]),
        ).trimEnd(),
      );
    }
    return result;
  }
}

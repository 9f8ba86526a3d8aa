import { Flags } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';
import { API_TOKEN_ROLES } from '../../core/access/api-token.js';
import { parseDuration } from '../../core/duration.js';
import type { CreatedToken } from '../../ipc/protocol.js';

export default class TokenCreate extends SchedCommand {
  static override summary = 'Create a token for the HTTPS API; it is printed once and stored only as a hash.';
  static override description =
    'A token is 256 random bits. API requests send it as `Authorization: Bearer <token>` and act as its ' +
    'owner with its role: a viewer reads, an operator adds jobs and changes the jobs its owner owns, an ' +
    'admin does everything. Without --owner it owns its jobs as `token:NAME`, a user no host has, so it can ' +
    'add HTTP jobs but no commands. Admins only; audited.';

  static override examples = [
    {
      description: 'A token for CI that adds and changes its own jobs, for 90 days.',
      command: '<%= config.bin %> <%= command.id %> --name ci --role operator --owner deploy --ttl 90d',
    },
    {
      description: 'A read-only token.',
      command: '<%= config.bin %> <%= command.id %> --name grafana --role viewer',
    },
  ];

  static override flags = {
    name: Flags.string({
      summary: 'What to call it (in `sched token ls` and the audit log).',
      required: true,
    }),
    role: Flags.string({ summary: 'What it may do.', options: [...API_TOKEN_ROLES], required: true }),
    owner: Flags.string({ summary: 'The user it acts as: owner of the jobs it adds (default token:NAME).' }),
    ttl: Flags.string({ summary: 'How long it lasts, such as 90d or 12h (default: until revoked).' }),
  };

  async run(): Promise<CreatedToken> {
    const { flags } = await this.parse(TokenCreate);
    const ttlMs = flags.ttl === undefined ? undefined : parseDuration(flags.ttl, '--ttl');
    const client = await this.client();
    const created = await client.call('token.create', {
      name: flags.name,
      role: flags.role as CreatedToken['role'],
      owner: flags.owner,
      ttlMs,
    });
    if (!this.jsonEnabled()) {
      this.log(created.token);
      const expires =
        created.expiresAt === null ? 'never expires' : `expires ${new Date(created.expiresAt).toISOString()}`;
      process.stderr.write(
        `Token ${created.name} (${created.role}, as ${created.owner}; ${expires}). It is shown only now: keep it safe.\n`,
      );
    }
    return created;
  }
}

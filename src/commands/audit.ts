import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { renderAuditTable } from '../cli/format/audit-list.js';
import { shellQuote } from '../cli/format/command-line.js';
import type { AuditRecord, Page } from '../ipc/protocol.js';

export default class Audit extends SchedCommand {
  static override summary = 'List who changed what, newest first.';
  static override description = `Every change to a job (add, update, pause, resume, cancel), every kill and retry of a run, and every run that failed for good is recorded with the unix user behind it and the state before and after.

CHANGE names the fields that differ; values that may be secrets (env, headers, payload) are never shown. \`--json\` prints the entries whole, before and after included.`;

  static override examples = [
    { description: 'Recent changes to every job.', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'Who changed the nightly backup, and how.',
      command: '<%= config.bin %> <%= command.id %> nightly --limit 20',
    },
    {
      description: 'The full before and after of the latest change, as JSON.',
      command: "<%= config.bin %> <%= command.id %> nightly --limit 1 --json | jq '.items[0]'",
    },
  ];

  static override args = {
    job: Args.string({
      description: 'Only entries about this job (name or id).',
      required: false,
      ignoreStdin: true,
    }),
  };

  static override flags = {
    limit: Flags.integer({ summary: 'At most this many entries (1-1000, default 50).', min: 1, max: 1000 }),
    cursor: Flags.string({ summary: 'Continue where the previous page ended.' }),
  };

  async run(): Promise<Page<AuditRecord>> {
    const { args, flags } = await this.parse(Audit);
    const client = await this.client();
    const page = await client.call('audit.list', {
      jobRef: args.job,
      limit: flags.limit,
      cursor: flags.cursor,
    });

    if (!this.jsonEnabled()) {
      if (page.items.length === 0) this.log(flags.cursor ? 'No more entries.' : 'No changes recorded yet.');
      else this.log(renderAuditTable(page.items, this.viewer()));
      if (page.nextCursor) {
        const command = [`${this.config.bin} audit`, ...(args.job ? [shellQuote(args.job)] : [])];
        this.log(`More: ${[...command, `--cursor ${shellQuote(page.nextCursor)}`].join(' ')}`);
      }
    }
    return page;
  }
}

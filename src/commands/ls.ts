import { Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { shellQuote } from '../cli/format/command-line.js';
import { renderJobTable } from '../cli/format/job-list.js';
import { parseKeyValuePairs } from '../cli/key-value.js';
import type { Job, JobState } from '../core/job.js';
import type { Page } from '../ipc/protocol.js';

// Spelled out rather than imported: JOB_STATES lives next to the zod schemas, which `ls` should not load.
const JOB_STATE_NAMES = ['active', 'paused', 'cancelled'] as const satisfies readonly JobState[];

export default class Ls extends SchedCommand {
  static override summary = 'List jobs with their schedule and next run.';
  static override description =
    'Times are shown in your time zone; schedules are described in the job’s own zone.';

  static override examples = [
    { description: 'List jobs.', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'Paused jobs of the ops team.',
      command: '<%= config.bin %> <%= command.id %> --status paused --label team=ops',
    },
    {
      description: 'As JSON, 200 at a time.',
      command: '<%= config.bin %> <%= command.id %> --limit 200 --json',
    },
  ];

  static override flags = {
    status: Flags.option({
      summary: 'Only jobs in this state (repeatable).',
      options: JOB_STATE_NAMES,
      multiple: true,
      multipleNonGreedy: true,
    })(),
    label: Flags.string({
      summary: 'Only jobs with this label (repeatable; all must match).',
      helpValue: 'KEY=VALUE',
      multiple: true,
      multipleNonGreedy: true,
    }),
    limit: Flags.integer({ summary: 'At most this many jobs (1-1000, default 50).', min: 1, max: 1000 }),
    cursor: Flags.string({ summary: 'Continue a listing where the previous page ended.' }),
  };

  async run(): Promise<Page<Job>> {
    const { flags } = await this.parse(Ls);
    const labels = parseKeyValuePairs(flags.label, 'label');

    const client = await this.client();
    const page = await client.call('job.list', {
      states: flags.status,
      labels,
      limit: flags.limit,
      cursor: flags.cursor,
    });

    if (!this.jsonEnabled()) {
      if (page.items.length === 0)
        this.log(`No jobs${flags.cursor ? ' left' : ''}. Add one with \`${this.config.bin} add\`.`);
      else {
        const { describeSchedule } = await import('../core/schedule/describe.js');
        this.log(renderJobTable(page.items, this.viewer(), describeSchedule));
      }
      if (page.nextCursor) {
        const filters = [
          ...(flags.status ?? []).map((s) => `--status ${s}`),
          ...(flags.label ?? []).map((l) => `--label ${shellQuote(l)}`),
        ];
        this.log(
          `More: ${[`${this.config.bin} ls`, ...filters, `--cursor ${shellQuote(page.nextCursor)}`].join(' ')}`,
        );
      }
    }
    return page;
  }
}

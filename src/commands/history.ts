import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { shellQuote } from '../cli/format/command-line.js';
import { renderRunTable } from '../cli/format/run-list.js';
import { parseKeyValuePairs } from '../cli/key-value.js';
import { RUN_STATES, type RunSummary } from '../core/run.js';
import type { Page } from '../ipc/protocol.js';

export default class History extends SchedCommand {
  static override summary = 'List past and current runs, newest first.';
  static override description = `Times are shown in your time zone. \`sched logs RUN\` shows the output of one run.

STATE says where a run stands among its attempts: \`failed → retried\` (a later attempt took over), \`failed (dead)\` (no attempt follows: the job's retries are used up, or it has none), \`scheduled (due in 20s)\` (a retry waiting out its backoff). \`--status failed\` is the dead-letter view; \`sched retry RUN\` redrives one. In \`--json\`, \`retriedBy\` is the id of the attempt that followed.`;

  static override examples = [
    { description: 'Recent runs of every job.', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'Failed runs of the nightly backup.',
      command: '<%= config.bin %> <%= command.id %> nightly --status failed --status timed_out',
    },
    {
      description: 'Dead letters: failed runs that no attempt followed, as run ids.',
      command:
        "<%= config.bin %> <%= command.id %> --status failed --json | jq -r '.items[] | select(.retriedBy == null) | .id'",
    },
    {
      description: 'Runs of the ops team’s jobs, as JSON.',
      command: '<%= config.bin %> <%= command.id %> --label team=ops --limit 100 --json',
    },
  ];

  static override args = {
    job: Args.string({
      description: 'Only runs of this job (name or id).',
      required: false,
      ignoreStdin: true,
    }),
  };

  static override flags = {
    status: Flags.option({
      summary: 'Only runs in this state (repeatable).',
      options: RUN_STATES,
      multiple: true,
      multipleNonGreedy: true,
    })(),
    label: Flags.string({
      summary: 'Only runs of jobs with this label (repeatable).',
      helpValue: 'KEY=VALUE',
      multiple: true,
      multipleNonGreedy: true,
    }),
    limit: Flags.integer({ summary: 'At most this many runs (1-1000, default 50).', min: 1, max: 1000 }),
    cursor: Flags.string({ summary: 'Continue where the previous page ended.' }),
  };

  async run(): Promise<Page<RunSummary>> {
    const { args, flags } = await this.parse(History);
    const labels = parseKeyValuePairs(flags.label, 'label');

    const client = await this.client();
    const page = await client.call('run.list', {
      jobRef: args.job,
      states: flags.status,
      labels,
      limit: flags.limit,
      cursor: flags.cursor,
    });

    if (!this.jsonEnabled()) {
      if (page.items.length === 0) this.log(flags.cursor ? 'No more runs.' : 'No runs yet.');
      else this.log(renderRunTable(page.items, this.viewer()));
      if (page.nextCursor) {
        const filters = [
          ...(args.job ? [shellQuote(args.job)] : []),
          ...(flags.status ?? []).map((state) => `--status ${state}`),
          ...(flags.label ?? []).map((label) => `--label ${shellQuote(label)}`),
        ];
        this.log(
          `More: ${[`${this.config.bin} history`, ...filters, `--cursor ${shellQuote(page.nextCursor)}`].join(' ')}`,
        );
      }
    }
    return page;
  }
}

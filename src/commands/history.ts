import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { shellQuote } from '../cli/format/command-line.js';
import { renderLedgerTable } from '../cli/format/ledger-list.js';
import { renderRunTable } from '../cli/format/run-list.js';
import { parseKeyValuePairs } from '../cli/key-value.js';
import { timeRangeFlags, timeRangeFromFlags } from '../cli/time-range-flags.js';
import { SchedError } from '../core/errors.js';
import type { LedgerEntry } from '../core/ledger/entry.js';
import { RUN_STATES, type RunSummary } from '../core/run.js';
import type { Page } from '../ipc/protocol.js';

export default class History extends SchedCommand {
  static override summary = 'List past and current runs, newest first.';
  static override description = `Times are shown in your time zone. \`sched logs RUN\` shows the output of one run.

--since and --until keep the runs that started in that range (a run that has not started yet counts at the time it is due); each takes a duration ago, such as 2h, or a time, such as 2026-12-01 or "2026-12-01 09:00" (in your time zone).

STATE says where a run stands among its attempts: \`failed → retried\` (a later attempt took over), \`failed (dead)\` (no attempt follows: the job's retries are used up, or it has none), \`scheduled (due in 20s)\` (a retry waiting out its backoff). \`--status failed\` is the dead-letter view; \`sched retry RUN\` redrives one. In \`--json\`, \`retriedBy\` is the id of the attempt that followed.

With --all-occurrences, lists every instant the job was due instead, whether it ran or not (skipped for overlap, missed while the daemon was down, passed over by a clock change...), in the job's time zone, with the runs it made and why; \`sched why JOB --at TIME\` tells one instant's story in a sentence.`;

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
      description: 'Runs that started in the last two hours.',
      command: '<%= config.bin %> <%= command.id %> --since 2h',
    },
    {
      description: 'Runs of the nightly job one morning, in your time zone.',
      command:
        "<%= config.bin %> <%= command.id %> nightly --since '2026-12-01 06:00' --until '2026-12-01 12:00'",
    },
    {
      description: 'Every instant the nightly job was due, run or not, and why.',
      command: '<%= config.bin %> <%= command.id %> nightly --all-occurrences',
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
    owner: Flags.string({
      summary: 'Only runs of jobs this user owns.',
      helpValue: 'USER',
    }),
    ...timeRangeFlags('runs that started'),
    limit: Flags.integer({ summary: 'At most this many runs (1-1000, default 50).', min: 1, max: 1000 }),
    cursor: Flags.string({ summary: 'Continue where the previous page ended.' }),
    'all-occurrences': Flags.boolean({
      summary: 'List every instant the job was due (run or not) and what happened to it, instead of runs.',
      exclusive: ['status', 'label', 'owner', 'since', 'until'],
    }),
  };

  async run(): Promise<Page<RunSummary> | Page<LedgerEntry>> {
    const { args, flags } = await this.parse(History);
    if (flags['all-occurrences']) {
      if (args.job === undefined) {
        throw new SchedError('VALIDATION_FAILED', '--all-occurrences needs a job.', {
          hint: `Name one: ${this.config.bin} history JOB --all-occurrences.`,
        });
      }
      return this.occurrences(args.job, flags.limit, flags.cursor);
    }
    const labels = parseKeyValuePairs(flags.label, 'label');
    const range = await timeRangeFromFlags(flags, this.viewer());

    const client = await this.client();
    const page = await client.call('run.list', {
      jobRef: args.job,
      states: flags.status,
      labels,
      owner: flags.owner,
      ...range,
      limit: flags.limit,
      cursor: flags.cursor,
    });

    if (!this.jsonEnabled()) {
      const filtered = range.since !== undefined || range.until !== undefined;
      if (page.items.length === 0)
        this.log(flags.cursor ? 'No more runs.' : filtered ? 'No runs in that time.' : 'No runs yet.');
      else this.log(renderRunTable(page.items, this.viewer()));
      if (page.nextCursor) {
        const filters = [
          ...(args.job ? [shellQuote(args.job)] : []),
          ...(flags.status ?? []).map((state) => `--status ${state}`),
          ...(flags.label ?? []).map((label) => `--label ${shellQuote(label)}`),
          ...(flags.owner === undefined ? [] : [`--owner ${shellQuote(flags.owner)}`]),
          // As instants: a duration ago would slide between pages.
          ...(range.since === undefined ? [] : [`--since ${new Date(range.since).toISOString()}`]),
          ...(range.until === undefined ? [] : [`--until ${new Date(range.until).toISOString()}`]),
        ];
        this.log(
          `More: ${[`${this.config.bin} history`, ...filters, `--cursor ${shellQuote(page.nextCursor)}`].join(' ')}`,
        );
      }
    }
    return page;
  }

  private async occurrences(
    ref: string,
    limit: number | undefined,
    cursor: string | undefined,
  ): Promise<Page<LedgerEntry>> {
    const client = await this.client();
    const [detail, page] = await Promise.all([
      client.call('job.get', { ref, upcoming: 0 }),
      client.call('job.occurrences', { ref, limit, cursor }),
    ]);
    if (!this.jsonEnabled()) {
      if (page.items.length === 0)
        this.log(cursor ? 'No more instants.' : `No instant of ${detail.job.name} has been recorded yet.`);
      else this.log(renderLedgerTable(page.items, detail.job.timezone));
      if (page.nextCursor) {
        this.log(
          `More: ${this.config.bin} history ${shellQuote(ref)} --all-occurrences --cursor ${shellQuote(page.nextCursor)}`,
        );
      }
    }
    return page;
  }
}

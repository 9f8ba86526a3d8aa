import { Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { listEveryJob } from '../client/every-job.js';
import { shellQuote } from '../cli/format/command-line.js';
import { renderJobTable } from '../cli/format/job-list.js';
import { parseKeyValuePairs } from '../cli/key-value.js';
import { asListed, JOB_STATUSES, type ListedJob } from '../core/job-status.js';
import type { JobListPage, Page } from '../ipc/protocol.js';

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
    { description: 'Every job, however many.', command: '<%= config.bin %> <%= command.id %> --all' },
    {
      description: 'As JSON, 200 at a time.',
      command: '<%= config.bin %> <%= command.id %> --limit 200 --json',
    },
  ];

  static override flags = {
    status: Flags.option({
      summary: 'Only jobs in this state (repeatable; done: a one-shot job that has fired).',
      options: JOB_STATUSES,
      multiple: true,
      multipleNonGreedy: true,
    })(),
    label: Flags.string({
      summary: 'Only jobs with this label (repeatable; all must match).',
      helpValue: 'KEY=VALUE',
      multiple: true,
      multipleNonGreedy: true,
    }),
    owner: Flags.string({
      summary: 'Only jobs this user owns (who added them).',
      helpValue: 'USER',
    }),
    limit: Flags.integer({
      summary:
        'At most this many jobs (1-1000, default 50); with --all, how many to ask for at a time (default 1000).',
      min: 1,
      max: 1000,
    }),
    cursor: Flags.string({
      summary: 'Continue a listing where the previous page ended.',
      exclusive: ['all'],
    }),
    all: Flags.boolean({ summary: 'List every job, page after page, rather than the first page only.' }),
  };

  async run(): Promise<Page<ListedJob> & { stale?: string }> {
    const { flags } = await this.parse(Ls);
    const labels = parseKeyValuePairs(flags.label, 'label');

    const client = await this.client();
    const query = { states: flags.status, labels, owner: flags.owner, limit: flags.limit };
    const page: JobListPage = flags.all
      ? { items: await listEveryJob(client, { ...query, limit: flags.limit ?? 1000 }), nextCursor: null }
      : await client.call('job.list', { ...query, cursor: flags.cursor });

    if (!this.jsonEnabled()) {
      if (page.stale !== undefined) this.logToStderr(`Note: ${page.stale}.`);
      if (page.items.length === 0)
        this.log(`No jobs${flags.cursor ? ' left' : ''}. Add one with \`${this.config.bin} add\`.`);
      else {
        const { describeSchedule } = await import('../core/schedule/describe.js');
        this.log(renderJobTable(page.items, this.viewer(), describeSchedule));
      }
      if (page.nextCursor) {
        const command = [
          `${this.config.bin} ls`,
          ...(flags.status ?? []).map((s) => `--status ${s}`),
          ...(flags.label ?? []).map((l) => `--label ${shellQuote(l)}`),
          ...(flags.owner === undefined ? [] : [`--owner ${shellQuote(flags.owner)}`]),
        ].join(' ');
        const filtered = labels !== undefined || flags.status !== undefined || flags.owner !== undefined;
        const total = filtered ? null : await this.liveJobCount();
        this.log(
          `${shownOf(page.items.length, total)}; \`${command} --all\` lists all, ` +
            `\`${command} --cursor ${shellQuote(page.nextCursor)}\` the next page.`,
        );
      }
    }
    const listed = { items: page.items.map(asListed), nextCursor: page.nextCursor };
    return page.stale === undefined ? listed : { ...listed, stale: page.stale };
  }

  /** How many jobs there are in all, when the daemon's counts say it: for the unfiltered listing only. */
  private async liveJobCount(): Promise<number> {
    const { jobs } = await (await this.client()).call('daemon.status', {});
    return jobs.active + jobs.paused;
  }
}

function shownOf(shown: number, total: number | null): string {
  const count = (n: number) => n.toLocaleString('en-US');
  return total === null || total < shown
    ? `${count(shown)} job${shown === 1 ? '' : 's'} shown, and there are more`
    : `${count(shown)} of ${count(total)} jobs shown`;
}

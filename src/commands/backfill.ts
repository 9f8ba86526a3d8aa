import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { renderBackfill } from '../cli/format/backfill.js';
import type { BackfillResult } from '../ipc/protocol.js';

const DEFAULT_MAX = 10_000;
const MAX_ALLOWED = 1_000_000;

export default class Backfill extends SchedCommand {
  static override summary = 'Run the instants a job was due in a past range: each once, in order.';
  static override description = `Every instant of the job's schedule from --from to --to (both included) gets a run, unless it already has one. The job's overlap policy decides how they run: one after another, oldest first, or all at once with --concurrency allow. Its DST policy applies, so a wall time the clocks skipped or repeated is treated as on the day.

--dry-run lists the instants and what would happen to each, without running anything. A range of more than ${DEFAULT_MAX.toLocaleString('en-US')} instants is refused unless --max allows it.`;

  static override examples = [
    {
      description: 'See what backfilling the first week of March would do.',
      command:
        "<%= config.bin %> <%= command.id %> nightly --from '2026-03-01 00:00' --to '2026-03-08 00:00' --dry-run",
    },
    {
      description: 'Then do it.',
      command:
        "<%= config.bin %> <%= command.id %> nightly --from '2026-03-01 00:00' --to '2026-03-08 00:00'",
    },
    {
      description: 'A minutely job over a month, above the usual limit.',
      command:
        '<%= config.bin %> <%= command.id %> poll --from 2026-01-01T00:00Z --to 2026-02-01T00:00Z --max 50000',
    },
  ];

  static override args = {
    job: Args.string({ description: 'Name or id of the job.', required: true, ignoreStdin: true }),
  };

  static override flags = {
    from: Flags.string({
      summary:
        "First time of the range: an ISO instant, or a local time or date (its midnight) in the job's zone.",
      helpValue: 'TIME',
      required: true,
    }),
    to: Flags.string({
      summary:
        "Last time of the range: an ISO instant, or a local time or date (its midnight) in the job's zone.",
      helpValue: 'TIME',
      required: true,
    }),
    'dry-run': Flags.boolean({ summary: 'List the instants and what would happen, and run nothing.' }),
    max: Flags.integer({
      summary: `Allow up to N instants (default ${DEFAULT_MAX}).`,
      helpValue: 'N',
      min: 1,
      max: MAX_ALLOWED,
    }),
  };

  async run(): Promise<BackfillResult> {
    const { args, flags } = await this.parse(Backfill);
    const client = await this.client();
    // --from and --to may be wall times, which are read in the job's zone, so the job comes first.
    const [{ parseTimeOrDate }, { job }] = await Promise.all([
      import('../core/schedule/at.js'),
      client.call('job.get', { ref: args.job, upcoming: 0 }),
    ]);
    const from = parseTimeOrDate(flags.from, job.timezone);
    const to = parseTimeOrDate(flags.to, job.timezone);
    const result = await client.call('job.backfill', {
      ref: job.id,
      from,
      to,
      dryRun: flags['dry-run'] === true,
      max: flags.max,
    });
    if (!this.jsonEnabled()) this.log(renderBackfill(result));
    return result;
  }
}

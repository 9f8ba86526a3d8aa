import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import type { Run } from '../core/run.js';

export default class Ping extends SchedCommand {
  static override summary =
    'Record a run that happened elsewhere: a check-in from a cron job on another host.';
  static override description = `The run is stored with trigger "ping" and counts like any other: a success clears an overdue job (--expect-success-every), --fail records a failure and sends the job's failure and dead notifications.`;

  static override examples = [
    {
      description: 'Check in from a crontab line elsewhere, telling sched whether the backup worked.',
      command:
        '0 3 * * * ./backup.sh && <%= config.bin %> <%= command.id %> backup || <%= config.bin %> <%= command.id %> backup --fail',
    },
  ];

  static override args = {
    job: Args.string({ description: 'Name or id of the job.', required: true, ignoreStdin: true }),
  };

  static override flags = {
    fail: Flags.boolean({ summary: 'Record a failed run instead of a success.' }),
    message: Flags.string({
      summary: 'A line to keep with the run (its error when --fail).',
      helpValue: 'TEXT',
    }),
  };

  async run(): Promise<Run> {
    const { args, flags } = await this.parse(Ping);
    const client = await this.client();
    const run = await client.call('job.ping', { ref: args.job, fail: flags.fail, message: flags.message });
    if (!this.jsonEnabled())
      this.log(
        `Recorded ${run.state === 'succeeded' ? 'a success' : 'a failure'} of job ${run.jobName}: run ${run.id}.`,
      );
    return run;
  }
}

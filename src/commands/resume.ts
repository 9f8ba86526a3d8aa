import { Args } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { describeNextRun } from '../cli/format/next-run.js';
import type { Job } from '../core/job.js';

export default class Resume extends SchedCommand {
  static override summary =
    'Resume a paused job; the instants it missed while paused go through its --misfire policy (by default the latest runs once).';

  static override examples = [
    {
      description: 'Resume a job after maintenance.',
      command: '<%= config.bin %> <%= command.id %> nightly',
    },
    {
      description: 'Resume and print the job as JSON.',
      command: '<%= config.bin %> <%= command.id %> nightly --json',
    },
  ];

  static override args = {
    job: Args.string({ description: 'Name or id of the job.', required: true, ignoreStdin: true }),
  };

  async run(): Promise<Job> {
    const { args } = await this.parse(Resume);
    const client = await this.client();
    const job = await client.call('job.resume', { ref: args.job });
    if (!this.jsonEnabled()) this.log(`Resumed job ${job.name}, ${describeNextRun(job, this.viewer())}.`);
    return job;
  }
}

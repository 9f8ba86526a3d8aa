import { Args } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import type { Job } from '../core/job.js';

export default class Cancel extends SchedCommand {
  static override summary = 'Cancel a job: it will not run again, and its name is free for a new job.';
  static override description = 'Its history is kept; `sched history JOB` still shows past runs.';

  static override examples = [
    { description: 'Cancel a job by name.', command: '<%= config.bin %> <%= command.id %> nightly' },
    {
      description: 'Cancel and print the final state of the job.',
      command: '<%= config.bin %> <%= command.id %> nightly --json',
    },
  ];

  static override args = {
    job: Args.string({ description: 'Name or id of the job.', required: true, ignoreStdin: true }),
  };

  async run(): Promise<Job> {
    const { args } = await this.parse(Cancel);
    const client = await this.client();
    const job = await client.call('job.cancel', { ref: args.job });
    if (!this.jsonEnabled()) this.log(`Cancelled job ${job.name}; it will not run again.`);
    return job;
  }
}

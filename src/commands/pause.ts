import { Args } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import type { Job } from '../core/job.js';

export default class Pause extends SchedCommand {
  static override summary = 'Pause a job: it keeps its schedule but does not run until resumed.';

  static override examples = [
    {
      description: 'Pause a job during maintenance.',
      command: '<%= config.bin %> <%= command.id %> nightly',
    },
    {
      description: 'Pause by id, as JSON.',
      command: '<%= config.bin %> <%= command.id %> 01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44 --json',
    },
  ];

  static override args = {
    job: Args.string({ description: 'Name or id of the job.', required: true, ignoreStdin: true }),
  };

  async run(): Promise<Job> {
    const { args } = await this.parse(Pause);
    const client = await this.client();
    const job = await client.call('job.pause', { ref: args.job });
    if (!this.jsonEnabled())
      this.log(`Paused job ${job.name}; resume it with \`${this.config.bin} resume ${job.name}\`.`);
    return job;
  }
}

import { Args } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import type { Run } from '../core/run.js';

export default class Retry extends SchedCommand {
  static override summary = 'Run a run that ended without success again, now, as its next attempt.';
  static override description = `Takes a failed, timed-out, lost or cancelled run. The new attempt has the same scheduled instant as the run it retries and the next attempt number; if it fails as well, it is retried only while its attempt number is within the job's --retries. \`sched history --status failed\` lists the runs that failed for good.`;

  static override examples = [
    {
      description: 'Redrive a run that failed for good.',
      command: '<%= config.bin %> <%= command.id %> 01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44',
    },
    {
      description: 'Retry and follow the new attempt’s output.',
      command:
        '<%= config.bin %> logs "$(<%= config.bin %> <%= command.id %> 01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44 --json | jq -r \'.id\')"',
    },
  ];

  static override args = {
    run: Args.string({
      description: 'Id of the run to retry, or a unique start of it (from `sched history`).',
      required: true,
      ignoreStdin: true,
    }),
  };

  async run(): Promise<Run> {
    const { args } = await this.parse(Retry);
    const client = await this.client();
    const run = await client.call('run.retry', { id: args.run });
    if (!this.jsonEnabled()) {
      this.log(`Retrying run ${args.run} of job ${run.jobName}: new run ${run.id}, attempt ${run.attempt}.`);
      this.log(`See its output with: ${this.config.bin} logs ${run.id}`);
    }
    return run;
  }
}

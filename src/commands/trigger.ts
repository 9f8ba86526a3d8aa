import { Args } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { idempotencyKeyFlag } from '../cli/job-flags.js';
import type { Run } from '../core/run.js';

export default class Trigger extends SchedCommand {
  static override summary = 'Run a job now, once, outside its schedule.';
  static override description = `Its schedule is unchanged. The run id printed is what \`sched logs\` takes.

With --idempotency-key, repeating the trigger within 24h (say, after a lost reply or from a retried script) returns the run started the first time instead of starting another.`;

  static override examples = [
    { description: 'Try the backup now.', command: '<%= config.bin %> <%= command.id %> nightly' },
    {
      description: 'Trigger and keep the run id for a script.',
      command: "<%= config.bin %> <%= command.id %> nightly --json | jq -r '.id'",
    },
    {
      description: 'Trigger once per deployment, however often the deploy script is retried.',
      command: '<%= config.bin %> <%= command.id %> warm-cache --idempotency-key "deploy-$DEPLOY_ID"',
    },
  ];

  static override args = {
    job: Args.string({ description: 'Name or id of the job.', required: true, ignoreStdin: true }),
  };

  static override flags = { ...idempotencyKeyFlag };

  async run(): Promise<Run> {
    const { args, flags } = await this.parse(Trigger);
    const client = await this.client();
    const run = await client.call('job.trigger', {
      ref: args.job,
      idempotencyKey: flags['idempotency-key'],
    });
    if (!this.jsonEnabled()) {
      this.log(`Triggered job ${run.jobName}: run ${run.id} on ${run.node}.`);
      this.log(`See its output with: ${this.config.bin} logs ${run.id}`);
    }
    return run;
  }
}

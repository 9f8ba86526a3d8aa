import { Args } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import type { Run } from '../core/run.js';

export default class Kill extends SchedCommand {
  static override summary =
    'Stop a running run, or cancel one waiting to start; it is recorded as cancelled.';
  static override description = `A command run's whole process group is killed; an HTTP run's request is aborted. A run that waits to start (a retry waiting out its backoff, an instant queued by --concurrency queue or --max-concurrent) is cancelled and never starts. A killed run is not retried: killing a waiting retry ends the instant's retries. The job keeps its schedule (use \`sched pause\` or \`sched cancel\` to stop that).`;

  static override examples = [
    {
      description: 'Stop a run that hangs.',
      command: '<%= config.bin %> <%= command.id %> 01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44',
    },
    {
      description: 'Cancel a retry that waits out its backoff; no further attempt follows.',
      command:
        '<%= config.bin %> <%= command.id %> "$(sched history nightly --status scheduled --limit 1 --json | jq -r \'.items[0].id\')"',
    },
    {
      description: 'Stop the newest running run of a job, from a script.',
      command:
        '<%= config.bin %> <%= command.id %> "$(sched history nightly --status running --limit 1 --json | jq -r \'.items[0].id\')" --json',
    },
  ];

  static override args = {
    run: Args.string({
      description: 'Id of the run, or a unique start of it (from `sched history` or `sched trigger`).',
      required: true,
      ignoreStdin: true,
    }),
  };

  async run(): Promise<Run> {
    const { args } = await this.parse(Kill);
    const client = await this.client();
    const run = await client.call('run.kill', { id: args.run });
    if (!this.jsonEnabled()) {
      this.log(
        run.startedAt === null
          ? `Cancelled run ${run.id} of job ${run.jobName} before it started; it will not run.`
          : `Killed run ${run.id} of job ${run.jobName}; recorded as cancelled.`,
      );
    }
    return run;
  }
}

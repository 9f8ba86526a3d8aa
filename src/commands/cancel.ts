import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import type { CancelledJob } from '../ipc/protocol.js';

export default class Cancel extends SchedCommand {
  static override summary = 'Cancel a job: it will not run again, and its name is free for a new job.';
  static override description =
    'Its history is kept; `sched history JOB` still shows past runs. A job that other jobs run after (--after, --after-all) is not cancelled unless --force is given: their link to it would be dead, and a new job of the same name does not take its place.';

  static override examples = [
    { description: 'Cancel a job by name.', command: '<%= config.bin %> <%= command.id %> nightly' },
    {
      description: 'Cancel and print the final state of the job.',
      command: '<%= config.bin %> <%= command.id %> nightly --json',
    },
    {
      description:
        'Cancel a job even though others run after it; it names the jobs left with nothing to start them.',
      command: '<%= config.bin %> <%= command.id %> extract --force',
    },
  ];

  static override args = {
    job: Args.string({ description: 'Name or id of the job.', required: true, ignoreStdin: true }),
  };

  static override flags = {
    force: Flags.boolean({
      description:
        'Cancel it even though other jobs run after it; it names the jobs it leaves with a dead link.',
      default: false,
    }),
  };

  async run(): Promise<CancelledJob> {
    const { args, flags } = await this.parse(Cancel);
    const client = await this.client();
    const job = await client.call('job.cancel', { ref: args.job, force: flags.force });
    if (!this.jsonEnabled()) {
      this.log(`Cancelled job ${job.name}; it will not run again.`);
      if (job.stranded.length > 0) this.log(strandedText(job));
    }
    return job;
  }
}

function strandedText(job: CancelledJob): string {
  const names = job.stranded.map((dependent) => dependent.name).join(', ');
  return (
    `These jobs ran after ${job.name} and no longer will: ${names}. ` +
    `Adding a new ${job.name} does not link them again; use \`sched update JOB --after ${job.name}\`.`
  );
}

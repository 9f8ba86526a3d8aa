import { Args } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { renderJobDetail } from '../cli/format/job-detail.js';
import type { JobDetail } from '../ipc/protocol.js';

export default class Show extends SchedCommand {
  static override summary =
    'Show a job: its schedule, command or HTTP request, retry policy, next runs and recent runs.';
  static override description =
    'Environment and header values are hidden (they are often secrets); only their names are shown. For an HTTP job the circuit breaker of its URL’s origin is shown too. `--json` prints the stored job as is, with `breaker` (null for command jobs).';

  static override examples = [
    { description: 'Show a job by name.', command: '<%= config.bin %> <%= command.id %> nightly' },
    {
      description: 'Show a job by id, as JSON.',
      command: '<%= config.bin %> <%= command.id %> 01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44 --json',
    },
  ];

  static override args = {
    job: Args.string({ description: 'Name or id of the job.', required: true, ignoreStdin: true }),
  };

  async run(): Promise<JobDetail> {
    const { args } = await this.parse(Show);
    const client = await this.client();
    const detail = await client.call('job.get', { ref: args.job, upcoming: 5 });

    if (!this.jsonEnabled()) {
      const { describeSchedule } = await import('../core/schedule/describe.js');
      this.log(renderJobDetail(detail, this.viewer(), describeSchedule));
    }
    return detail;
  }
}

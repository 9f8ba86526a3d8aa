import { Args } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';
import type { NotifyTestResult } from '../../ipc/protocol.js';

export default class NotifyTest extends SchedCommand {
  static override summary =
    "Send a test message to each of a job's notification targets and say what each answered.";
  static override description =
    'Sent at once, outside the stored deliveries: nothing is retried or throttled. The exit code is 1 when any target refused.';

  static override examples = [
    {
      description: 'Check the Slack hook of nightly.',
      command: '<%= config.bin %> <%= command.id %> nightly',
    },
  ];

  static override args = {
    job: Args.string({ description: 'Name or id of the job.', required: true, ignoreStdin: true }),
  };

  async run(): Promise<NotifyTestResult> {
    const { args } = await this.parse(NotifyTest);
    const client = await this.client();
    const result = await client.call('notify.test', { ref: args.job });
    if (!this.jsonEnabled()) {
      for (const target of result.targets)
        this.log(`${target.ok ? 'ok  ' : 'FAIL'} ${target.target}: ${target.answer}`);
    }
    if (result.targets.some((target) => !target.ok)) process.exitCode = 1;
    return result;
  }
}

import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import type { WhyAnswer } from '../ipc/protocol.js';

export default class Why extends SchedCommand {
  static override summary = 'Say in one sentence what happened to an instant of a job, and why.';
  static override description = `Without --at, the job's latest recorded instant; with it, the one nearest that time (within a minute). Each instant a job was due is recorded whether it ran or not: skipped because the previous run was still running, missed while the daemon was down or the job paused, passed over by a clock change. --json prints the answer with the ledger entry it explains (\`entries\`: every entry of the instant, one a node for an every-host job whose nodes each decided it).`;

  static override examples = [
    {
      description: 'What happened to the latest instant.',
      command: '<%= config.bin %> <%= command.id %> nightly',
    },
    {
      description: 'What happened at 03:00 on a given day, in the job’s zone.',
      command: "<%= config.bin %> <%= command.id %> nightly --at '2026-03-08 03:00'",
    },
    {
      description: 'The same, as JSON.',
      command: '<%= config.bin %> <%= command.id %> nightly --at 2026-03-08T07:00:00Z --json',
    },
  ];

  static override args = {
    job: Args.string({ description: 'Name or id of the job.', required: true, ignoreStdin: true }),
  };

  static override flags = {
    at: Flags.string({
      summary:
        "The instant to explain: an ISO instant, or a local time or date (its midnight) in the job's zone (default: the latest).",
      helpValue: 'TIME',
    }),
  };

  async run(): Promise<WhyAnswer> {
    const { args, flags } = await this.parse(Why);
    const client = await this.client();
    let ref = args.job;
    let at: number | undefined;
    if (flags.at !== undefined) {
      // A wall time is read in the job's zone, so the job comes first.
      const [{ parseTimeOrDate }, detail] = await Promise.all([
        import('../core/schedule/at.js'),
        client.call('job.get', { ref: args.job, upcoming: 0 }),
      ]);
      at = parseTimeOrDate(flags.at, detail.job.timezone);
      ref = detail.job.id;
    }
    const answer = await client.call('job.why', { ref, at });
    if (!this.jsonEnabled()) this.log(answer.sentence);
    return answer;
  }
}

import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { renderRedrive } from '../cli/format/redrive.js';
import { timeRangeFlags, timeRangeFromFlags } from '../cli/time-range-flags.js';
import { SchedError } from '../core/errors.js';
import type { Run } from '../core/run.js';
import type { RedriveResult } from '../ipc/protocol.js';

export default class Retry extends SchedCommand {
  static override summary = 'Run a run that ended without success again, now, as its next attempt.';
  static override description = `Takes a failed, timed-out, lost or cancelled run. The new attempt has the same scheduled instant as the run it retries and the next attempt number; if it fails as well, it is retried only while its attempt number is within the job's --retries. \`sched history --status failed\` lists the runs that failed for good.

With --now, takes a run that waits to start instead (a retry waiting out its backoff, an instant queued behind a running one) and starts it at once, as the attempt it is: no attempt is spent, and neither the job's --concurrency nor the daemon's --max-concurrent holds it back.

With --job and --since, redrives every dead run of the job in that time: each failed, timed-out or lost run that no attempt follows gets a new attempt, which waits for a free slot under --max-concurrent. A run that an attempt already follows is skipped and named, so redriving twice adds nothing the second time. --dry-run lists what it would redrive.`;

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
    {
      description: 'Start a retry that waits out its backoff now, instead of in ten minutes.',
      command: '<%= config.bin %> <%= command.id %> 01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44 --now',
    },
    {
      description: 'See which dead runs of the last day a redrive would take, then redrive them.',
      command: '<%= config.bin %> <%= command.id %> --job sync --since 1d --dry-run',
    },
  ];

  static override args = {
    run: Args.string({
      description: 'Id of the run to retry, or a unique start of it (from `sched history`).',
      required: false,
      ignoreStdin: true,
    }),
  };

  static override flags = {
    now: Flags.boolean({
      summary: 'Start a waiting run (a retry in its backoff, a queued instant) at once, as the same attempt.',
      exclusive: ['job'],
    }),
    job: Flags.string({
      summary: 'Redrive every dead run of this job (name or id) in the --since/--until range.',
      helpValue: 'JOB',
      dependsOn: ['since'],
    }),
    ...timeRangeFlags('dead runs that started'),
    'dry-run': Flags.boolean({
      summary: 'With --job: list the dead runs it would redrive, and change nothing.',
    }),
  };

  async run(): Promise<Run | RedriveResult> {
    const { args, flags } = await this.parse(Retry);
    if (flags.job !== undefined) {
      if (args.run !== undefined)
        throw usage(`Give a run or --job, not both (${args.run} and --job ${flags.job}).`);
      return this.redrive(flags.job, flags);
    }
    if (args.run === undefined) throw usage('Name the run to retry, or a job to redrive with --job.');
    for (const flag of ['since', 'until', 'dry-run'] as const)
      if (flags[flag] !== undefined && flags[flag] !== false)
        throw usage(`--${flag} goes with --job, not with a run.`);
    const client = await this.client();
    const run = await client.call('run.retry', { id: args.run, ...(flags.now ? { now: true } : {}) });
    if (!this.jsonEnabled()) {
      if (flags.now) this.log(`Started run ${run.id} of job ${run.jobName} now, as attempt ${run.attempt}.`);
      else
        this.log(
          `Retrying run ${args.run} of job ${run.jobName}: new run ${run.id}, attempt ${run.attempt}.`,
        );
      this.log(`See its output with: ${this.config.bin} logs ${run.id}`);
    }
    return run;
  }

  private async redrive(
    job: string,
    flags: { since?: string; until?: string; 'dry-run'?: boolean },
  ): Promise<RedriveResult> {
    const viewer = this.viewer();
    const { since, until } = await timeRangeFromFlags(flags, viewer);
    const client = await this.client();
    const result = await client.call('run.redrive', {
      jobRef: job,
      since: since!,
      until,
      dryRun: flags['dry-run'] === true,
    });
    if (!this.jsonEnabled()) this.log(renderRedrive(result, viewer));
    return result;
  }
}

function usage(message: string): SchedError {
  return new SchedError('VALIDATION_FAILED', message, {
    hint: 'sched retry RUN [--now], or sched retry --job JOB --since TIME [--until TIME] [--dry-run].',
  });
}

import { renderJobAlerts } from '../cli/format/job-alerts.js';
import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { renderJobDetail } from '../cli/format/job-detail.js';
import type { UpstreamRef } from '../cli/format/time-policy.js';
import { lookUpUpstreams, upstreamIds } from '../cli/upstream-lookup.js';
import { asListed, type ListedJob } from '../core/job-status.js';
import type { JobDetail } from '../ipc/protocol.js';

/** `--json`: the job detail as the daemon sends it (`done` for a fired one-shot job), plus the jobs it runs after, by name. */
export interface ShownJob extends Omit<JobDetail, 'job'> {
  job: ListedJob;
  /** The jobs in `job.after` and `job.afterAll` (stored as ids); `name` is null when that job is gone. */
  upstreams: UpstreamRef[];
}

export default class Show extends SchedCommand {
  static override summary =
    'Show a job: its schedule, command or HTTP request, retry and time policy, next runs and recent runs.';
  static override description =
    'Environment and header values are hidden (they are secrets); only their names are shown, and `--json` prints them and the payload as •••, unless an admin asks `--reveal` (audited). For an HTTP job the circuit breaker of its URL’s origin is shown too. Time-policy settings are shown where they differ from the defaults, and the jobs it runs after by name. `--json` prints the stored job as is (but with state `done` for a one-shot job that has fired), with `breaker` (null for command jobs), `runsAs` (whom a command job runs as: `user`, `uid`, or `refused` saying why its runs would fail; null for HTTP jobs) and `upstreams` (the jobs it runs after, with their names).';

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

  static override flags = {
    reveal: Flags.boolean({
      summary: 'Show secret values (env, header values, payload) in clear: admins only, audited.',
      default: false,
    }),
  };

  async run(): Promise<ShownJob> {
    const { args, flags } = await this.parse(Show);
    const client = await this.client();
    const detail = await client.call('job.get', {
      ref: args.job,
      upcoming: 5,
      ...(flags.reveal ? { reveal: true } : {}),
    });
    const upstreams = await lookUpUpstreams(upstreamIds(detail.job), async (id) => {
      const { job } = await client.call('job.get', { ref: id, upcoming: 0 });
      return job;
    });

    if (!this.jsonEnabled()) {
      if (detail.stale !== undefined) this.logToStderr(`Note: ${detail.stale}.`);
      const { describeSchedule } = await import('../core/schedule/describe.js');
      this.log(renderJobDetail(detail, this.viewer(), describeSchedule, upstreams));
      const alerts = renderJobAlerts(detail);
      if (alerts !== null) this.log(`\n${alerts}`);
    }
    return { ...detail, job: asListed(detail.job), upstreams: [...upstreams.values()] };
  }
}

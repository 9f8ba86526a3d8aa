import { alertClearFlags, alertClears } from '../cli/alert-flags.js';
import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { assertNoStrayArguments, splitAtDoubleDash } from '../cli/command-argv.js';
import { describeNextRun } from '../cli/format/next-run.js';
import { jobFieldsFromFlags, jobSpecFlags, scheduleFlags } from '../cli/job-flags.js';
import { retryClearFlags, retryClears } from '../cli/retry-clear-flags.js';
import {
  assertNoRetiredJitterSwitch,
  timePolicyClearFlags,
  timePolicyClears,
} from '../cli/time-policy-flags.js';
import { SchedError } from '../core/errors.js';
import type { Job, JobPatch } from '../core/job.js';

type ClearableField = NonNullable<JobPatch['clear']>[number];

export default class Update extends SchedCommand {
  static override summary = 'Change a job; what you do not mention stays as it is.';
  static override description = `Takes the same flags as \`sched add\`. A new command after "--" replaces the old one; --http URL turns the job into an HTTP job, and a command turns it back. Retry, HTTP and time-policy options change one by one (--retries 3 keeps the backoff, --misfire all keeps the catch-up window); --env, --header, --label, --after and --after-all replace the whole set. --clear-spread, --clear-jitter, --clear-skip-if-next-within, --clear-after, --clear-after-all, --clear-retry-on, --clear-no-retry-on and --clear-retry-deadline remove those settings.

With --if-version, the change is refused if someone changed the job since you looked (see \`sched show\`).`;

  static override examples = [
    {
      description: 'Move the nightly backup to 04:30.',
      command: "<%= config.bin %> <%= command.id %> nightly --cron '30 4 * * *'",
    },
    {
      description: 'Replace the command and drop the timeout.',
      command: '<%= config.bin %> <%= command.id %> nightly --clear-timeout -- ./backup.sh --incremental',
    },
    {
      description: 'Rename, only if nobody changed it since version 3.',
      command: '<%= config.bin %> <%= command.id %> nightly --name backup-nightly --if-version 3',
    },
    {
      description: 'Retry up to 3 times, at a constant 1m, without jitter.',
      command:
        '<%= config.bin %> <%= command.id %> nightly --retries 3 --backoff 1m --backoff-factor 1 --no-backoff-jitter',
    },
    {
      description: 'Queue an instant that comes due while the previous run runs, and stop the random delay.',
      command: '<%= config.bin %> <%= command.id %> nightly --concurrency queue --clear-jitter',
    },
    {
      description: 'Point a webhook job at a new URL; its method, headers and breaker stay.',
      command: '<%= config.bin %> <%= command.id %> sync --http https://api.example.com/v2/sync',
    },
  ];

  static override usage = [
    "<%= command.id %> JOB [--cron EXPR | --at TIME | --every DURATION] [--name NEW] [--if-version VERSION] [--tz ZONE] [--timeout DURATION | --clear-timeout] [--payload JSON|@FILE | --clear-payload] [--env KEY=VALUE...] [--cwd DIR | --clear-cwd] [--label KEY=VALUE...] [--description TEXT | --clear-description] [--retries N] [--backoff DURATION] [--backoff-factor F] [--backoff-max DURATION] [--[no-]backoff-jitter] [--backoff-type exponential|linear|constant] [--retry-on CODES | --clear-retry-on] [--no-retry-on CODES | --clear-no-retry-on] [--retry-deadline DURATION | --clear-retry-deadline] [--concurrency allow|forbid|replace|queue] [--misfire skip|latest|all|count:N] [--catchup-window DURATION] [--skip-if-next-within DURATION | --clear-skip-if-next-within] [--dst-gap shift|skip] [--dst-repeat first|last|both] [--spread DURATION | --clear-spread] [--jitter DURATION | --clear-jitter] [--after JOB[:ON]... | --clear-after] [--after-all JOB... | --clear-after-all] [--json] [--shell SCRIPT | --http URL | -- COMMAND [ARG...]] [--method METHOD] [--header 'NAME: VALUE'...] [--expect 2xx|CODES] [--breaker-failures N] [--breaker-cooldown DURATION]",
  ];

  // Not strict, so that words outside "--" reach run() and get a hint about "--" instead of oclif's bare error.
  static override strict = false;

  static override args = {
    job: Args.string({ description: 'Name or id of the job.', required: true, ignoreStdin: true }),
  };

  static override flags = {
    ...scheduleFlags(),
    ...jobSpecFlags,
    ...timePolicyClearFlags,
    ...retryClearFlags,
    ...alertClearFlags,
    name: Flags.string({ summary: 'Rename the job.', helpValue: 'NEW' }),
    'if-version': Flags.integer({
      summary: 'Refuse the change unless the job is still at this version.',
      helpValue: 'VERSION',
      min: 0,
    }),
    'clear-timeout': Flags.boolean({ summary: 'Remove the timeout.', exclusive: ['timeout'] }),
    'clear-payload': Flags.boolean({ summary: 'Remove the payload.', exclusive: ['payload'] }),
    'clear-description': Flags.boolean({ summary: 'Remove the description.', exclusive: ['description'] }),
    'clear-cwd': Flags.boolean({
      summary: "Run in the daemon's working directory again.",
      exclusive: ['cwd'],
    }),
  };

  async run(): Promise<Job> {
    const { own, command } = splitAtDoubleDash(this.argv);
    assertNoRetiredJitterSwitch(own);
    const { args, argv, flags } = await this.parse(Update, own);
    assertNoStrayArguments(argv, 1, `${this.config.bin} update ${args.job} -- ./new-command.sh`);

    const clear: ClearableField[] = [
      ...(['timeout', 'payload', 'description', 'cwd'] as const).filter((field) => flags[`clear-${field}`]),
      ...timePolicyClears(flags),
      ...retryClears(flags),
      ...alertClears(flags),
    ];
    const remote = await this.remote();
    const patch: JobPatch = { ...(await jobFieldsFromFlags(flags, command, process.cwd(), { remote })) };
    if (flags.name !== undefined) patch.name = flags.name;
    if (clear.length > 0) patch.clear = clear;
    if (Object.keys(patch).length === 0) {
      throw new SchedError('VALIDATION_FAILED', 'Nothing to update: no change was given.', {
        hint: `Give at least one change, for example --every 10m or --clear-timeout; see \`${this.config.bin} update --help\`.`,
      });
    }

    const client = await this.client();
    const job = await client.call('job.update', { ref: args.job, patch, ifVersion: flags['if-version'] });

    if (!this.jsonEnabled()) {
      this.log(
        `Updated job ${job.name} (now version ${job.version}), ${describeNextRun(job, this.viewer())}.`,
      );
    }
    return job;
  }
}

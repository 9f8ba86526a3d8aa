import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { assertNoStrayArguments, splitAtDoubleDash } from '../cli/command-argv.js';
import { describeNextRun } from '../cli/format/next-run.js';
import { idempotencyKeyFlag, jobFieldsFromFlags, jobSpecFlags, scheduleFlags } from '../cli/job-flags.js';
import { missingProgramWarning } from '../cli/program-check.js';
import { assertNoRetiredJitterSwitch } from '../cli/time-policy-flags.js';
import type { Job } from '../core/job.js';

/** The job as stored, with what looked wrong about it when it was added (only when something did). */
export type AddedJob = Job & { warnings?: string[] };

export default class Add extends SchedCommand {
  static override summary =
    'Add a job: a command or an HTTP request, run on a cron expression, once at a time, or at an interval.';
  static override description = `Give the command after "--" to run it directly (no shell), or as --shell SCRIPT to run it with /bin/sh -c, or call a URL with --http (the payload is the JSON body).

Everything after "--" belongs to the job, so flags there are not read by sched.

With --retries N, a failed, timed-out or lost run is tried again up to N times, after a delay that starts at --backoff and grows by --backoff-factor up to --backoff-max.

TIME POLICY flags say what happens when runs would overlap (--concurrency), to instants missed while the daemon was down or the job paused (--misfire, --catchup-window, --skip-if-next-within), where daylight-saving time skips or repeats a wall time (--dst-gap, --dst-repeat), and how far each start may move from its instant (--spread, a fixed offset per job; --jitter, a fresh random delay each time).

With --after JOB[:success|failure|always] the job runs when another one finishes an instant that way, and with --after-all A --after-all B once each of them has succeeded; such a job needs no schedule of its own.

With --paused the job is created paused, in one step: none of its instants runs until \`sched resume\`, not even one due a moment after the add.

With --idempotency-key, repeating the same command within 24h (say, after a lost reply) returns the job added the first time instead of failing on the taken name.`;

  static override examples = [
    {
      description: 'Back up every night at 03:00 Berlin time.',
      command:
        "<%= config.bin %> <%= command.id %> nightly --cron '0 3 * * *' --tz Europe/Berlin --timeout 1h -- ./backup.sh --full",
    },
    {
      description: 'Send a reminder once, with a JSON payload on stdin.',
      command:
        '<%= config.bin %> <%= command.id %> remind --at \'2026-12-01 09:00\' --payload \'{"to":"ops"}\' -- ./notify.sh',
    },
    {
      description: 'Poll every 30 seconds with a shell script, labelled for filtering.',
      command:
        "<%= config.bin %> <%= command.id %> poll --every 30s --label team=ops --shell 'curl -fsS localhost:8080/health'",
    },
    {
      description: 'Call a webhook every hour; retry up to 5 times, 30s apart at first, doubling up to 10m.',
      command:
        "<%= config.bin %> <%= command.id %> sync --cron '0 * * * *' --http https://api.example.com/sync --header 'Authorization: Bearer $TOKEN' --payload '{\"full\":false}' --expect 200,202 --retries 5 --backoff 30s --backoff-max 10m",
    },
    {
      description: 'Report every hour, never two at once; after downtime run only the newest missed hour.',
      command:
        "<%= config.bin %> <%= command.id %> report --cron '0 * * * *' --concurrency forbid --misfire latest --catchup-window 6h --spread 5m -- ./report.sh",
    },
    {
      description: 'Publish after the nightly backup succeeds; no schedule of its own.',
      command: '<%= config.bin %> <%= command.id %> publish --after nightly:success -- ./publish.sh',
    },
    {
      description:
        'Add a job paused, to look it over before it first runs; start it with `sched resume poll`.',
      command:
        "<%= config.bin %> <%= command.id %> poll --every 30s --paused --shell 'curl -fsS localhost:8080/health'",
    },
    {
      description: 'Add a job from a script that may run twice; the second run gets the same job back.',
      command:
        "<%= config.bin %> <%= command.id %> nightly --cron '0 3 * * *' --idempotency-key deploy-4711-nightly --json -- ./backup.sh",
    },
  ];

  static override usage = [
    "<%= command.id %> NAME [--cron EXPR | --at TIME | --every DURATION] [--after JOB[:ON]...] [--after-all JOB...] [--tz ZONE] [--timeout DURATION] [--payload JSON|@FILE] [--env KEY=VALUE...] [--cwd DIR] [--label KEY=VALUE...] [--description TEXT] [--retries N] [--backoff DURATION] [--backoff-factor F] [--backoff-max DURATION] [--[no-]backoff-jitter] [--backoff-type exponential|linear|constant] [--retry-on CODES] [--no-retry-on CODES] [--retry-deadline DURATION] [--concurrency allow|forbid|replace|queue] [--misfire skip|latest|all|count:N] [--catchup-window DURATION] [--skip-if-next-within DURATION] [--dst-gap shift|skip] [--dst-repeat first|last|both] [--spread DURATION] [--jitter DURATION] [--paused] [--idempotency-key KEY] [--json] (--shell SCRIPT | --http URL [--method METHOD] [--header 'NAME: VALUE'...] [--expect 2xx|CODES] [--breaker-failures N] [--breaker-cooldown DURATION] | -- COMMAND [ARG...])",
  ];

  // Not strict, so that words outside "--" reach run() and get a hint about "--" instead of oclif's bare error.
  static override strict = false;

  static override args = {
    name: Args.string({
      description: 'Unique name of the job (letters, digits, . _ : -).',
      required: true,
      ignoreStdin: true,
    }),
  };

  static override flags = {
    ...scheduleFlags(),
    ...jobSpecFlags,
    paused: Flags.boolean({
      summary: 'Create the job paused: nothing runs until `sched resume`.',
      default: false,
    }),
    ...idempotencyKeyFlag,
  };

  async run(): Promise<AddedJob> {
    const { own, command } = splitAtDoubleDash(this.argv);
    assertNoRetiredJitterSwitch(own);
    const { args, argv, flags } = await this.parse(Add, own);
    assertNoStrayArguments(argv, 1, `${this.config.bin} add ${args.name} --every 5m -- echo hi`);
    const remote = await this.remote();
    const fields = await jobFieldsFromFlags(flags, command, process.cwd(), { runHere: true, remote });
    // This host's files and PATH say nothing of a remote daemon's.
    const warning = remote ? null : missingProgramWarning(fields, process.env.PATH);

    const client = await this.client();
    const job = await client.call('job.add', {
      input: { name: args.name, ...fields },
      idempotencyKey: flags['idempotency-key'],
      ...(flags.paused ? { paused: true } : {}),
    });

    if (!this.jsonEnabled())
      this.log(`Added job ${job.name} (id ${job.id}), ${describeNextRun(job, this.viewer())}.`);
    // stderr in both modes: it does not disturb the JSON on stdout, and a script's log shows it.
    if (warning !== null)
      process.stderr.write(`Warning: ${warning}; its runs will fail until it is there.\n`);
    // Added all the same: the program may be put in place before the first run.
    return warning === null ? job : { ...job, warnings: [warning] };
  }
}

import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { formatOccurrenceLines } from '../cli/format/occurrence-line.js';
import { formatLocalIso, hostTimeZone } from '../cli/format/time.js';
import { SchedError, isSchedError } from '../core/errors.js';
import type { Job, Schedule } from '../core/job.js';
import type { DstPolicy, OccurrenceNote } from '../core/schedule/occurrences.js';

export interface InstantTimes {
  /** UTC, ISO 8601. */
  at: string;
  epochMs: number;
  /** Wall time in the schedule's zone, with its offset. */
  local: string;
}

export interface FireInstant extends InstantTimes {
  /** The local wall time the occurrence stands for, ISO without offset; for a skipped one, a time that never was. */
  wall: string;
  /** False for an occurrence the DST policy passes over (listed only with --explain). */
  fires: boolean;
  /** How a clock change touched it, or null. */
  note: OccurrenceNote;
  /** The --explain line, or null when no clock change touched it. */
  explanation: string | null;
  /** When the job starts it: the instant plus the job's spread offset; null without a spread. */
  start: InstantTimes | null;
}

export interface NextFireTimes {
  /** The cron expression; null for a job whose schedule is not one. */
  expression: string | null;
  timezone: string;
  instants: FireInstant[];
  /** The job asked about; null for an expression. */
  job: { id: string; name: string } | null;
  schedule: Schedule;
  dst: DstPolicy;
  spreadMs: number | null;
  /** This job's fixed offset within its spread. */
  spreadOffsetMs: number | null;
  /** The longest random delay added to each instant. */
  jitterMs: number | null;
}

export default class Next extends SchedCommand {
  static override summary = 'Show when a cron expression, or a job, would fire next.';
  static override description = `Each time is shown in the schedule's zone, with its UTC offset, and in UTC, so daylight-saving shifts are easy to check before a job goes live.

A single word that could be a job name (no spaces, not starting with @) is read as a job, which needs the daemon; anything else is a cron expression, which does not. For a job, its own zone, DST policy, spread and jitter apply: with --spread each line shows when the job starts, and with --jitter how much later it may start.

--explain says, under each occurrence a clock change touched, what happened: moved by the spring-forward jump, skipped (listed as not run), or one of two repeated wall times.`;

  static override examples = [
    {
      description: 'Weekday mornings in New York.',
      command: "<%= config.bin %> <%= command.id %> '0 9 * * 1-5' --tz America/New_York",
    },
    {
      description: 'Across the spring DST change in Berlin.',
      command:
        "<%= config.bin %> <%= command.id %> '30 2 * * *' --tz Europe/Berlin --from 2026-03-27T00:00:00Z -n 4",
    },
    {
      description: 'What --dst-gap skip would do at the spring change in New York.',
      command:
        "<%= config.bin %> <%= command.id %> '30 2 * * *' --tz America/New_York --from '2026-03-07 00:00' --dst-gap skip --explain -n 3",
    },
    {
      description: 'The next runs of the job nightly, with its spread and jitter.',
      command: '<%= config.bin %> <%= command.id %> nightly --explain',
    },
    {
      description: 'From a local time, as JSON.',
      command:
        "<%= config.bin %> <%= command.id %> '*/15 * * * *' --tz Asia/Kolkata --from '2026-06-01 08:00' --json",
    },
  ];

  static override usage = [
    '<%= command.id %> (JOB | EXPR) [--tz ZONE] [--from TIME] [-n N] [--explain] [--dst-gap shift|skip] [--dst-repeat first|last|both] [--json]',
  ];

  static override args = {
    target: Args.string({
      description: 'A job (name or id), or a cron expression (5 fields, or 6 with seconds first).',
      required: true,
      ignoreStdin: true,
    }),
  };

  static override flags = {
    tz: Flags.string({
      summary: "IANA time zone to evaluate an expression in (default: this host's; a job has its own).",
      helpValue: 'ZONE',
    }),
    from: Flags.string({
      summary:
        'Start from this time: an ISO instant, or a local time or date (its midnight) in the zone (default: now).',
      helpValue: 'TIME',
    }),
    count: Flags.integer({
      char: 'n',
      summary: 'How many runs to show (1-1000).',
      min: 1,
      max: 1000,
      default: 5,
    }),
    explain: Flags.boolean({
      summary: 'Say how daylight-saving changes move, skip or repeat each occurrence they touch.',
    }),
    'dst-gap': Flags.string({
      summary:
        'A wall time the clocks skip: shift (run at the jump; the default) or skip (for a job: instead of its own).',
      helpValue: 'shift|skip',
    }),
    'dst-repeat': Flags.string({
      summary: 'A wall time the clocks repeat: run at first, last or both (for a job: instead of its own).',
      helpValue: 'first|last|both',
    }),
  };

  async run(): Promise<NextFireTimes> {
    const { args, flags } = await this.parse(Next);
    const [{ assertTimezone }, { parseTimeOrDate }, { parseDstGap, parseDstRepeat }, { JOB_NAME_PATTERN }] =
      await Promise.all([
        import('../core/schedule/timezone.js'),
        import('../core/schedule/at.js'),
        import('../core/policy/dst.js'),
        import('../core/job.js'),
      ]);
    const text = args.target.trim();
    const job = !/\s/.test(text) && JOB_NAME_PATTERN.test(text) ? await this.findJob(text) : null;
    if (job !== null && flags.tz !== undefined) {
      throw new SchedError(
        'VALIDATION_FAILED',
        `--tz applies to a cron expression; job ${job.name} runs in ${job.timezone}.`,
        {
          hint: `Leave out --tz, or give the job's expression instead of its name to try another zone.`,
        },
      );
    }
    const schedule: Schedule = job?.schedule ?? { kind: 'cron', expression: text };
    if (job === null) (await import('../core/schedule/cron.js')).assertCronExpression(text);
    const timezone = job?.timezone ?? flags.tz ?? hostTimeZone();
    assertTimezone(timezone);
    const stored = job?.policy.dst ?? { gap: 'shift', repeat: 'first' };
    const dst: DstPolicy = {
      gap: flags['dst-gap'] === undefined ? stored.gap : parseDstGap(flags['dst-gap']),
      repeat: flags['dst-repeat'] === undefined ? stored.repeat : parseDstRepeat(flags['dst-repeat']),
    };
    // An instant with an offset is read as is; a wall time or a bare date (its midnight) in the zone.
    const from = flags.from === undefined ? Date.now() : parseTimeOrDate(flags.from, timezone);

    const result = await this.listing(schedule, job, timezone, dst, from, flags.count, flags.explain);
    if (!this.jsonEnabled()) this.render(result, flags.explain);
    return result;
  }

  private async listing(
    schedule: Schedule,
    job: Job | null,
    timezone: string,
    dst: DstPolicy,
    from: number,
    count: number,
    explain: boolean,
  ): Promise<NextFireTimes> {
    const [{ listNextOccurrences }, { explainOccurrence }, { spreadOffsetMs }] = await Promise.all([
      import('../cli/occurrence-listing.js'),
      import('../core/schedule/explain.js'),
      import('../core/policy/spread.js'),
    ]);
    const spreadMs = job?.policy.spreadMs ?? null;
    const offset = job === null || spreadMs === null ? null : spreadOffsetMs(job.id, spreadMs);
    const times = (ms: number): InstantTimes => ({
      at: new Date(ms).toISOString(),
      epochMs: ms,
      local: formatLocalIso(ms, timezone),
    });
    return {
      expression: schedule.kind === 'cron' ? schedule.expression : null,
      timezone,
      instants: listNextOccurrences(schedule, from, timezone, dst, count, explain).map((occurrence) => ({
        ...times(occurrence.at),
        wall: occurrence.wall,
        fires: occurrence.fires,
        note: occurrence.note,
        explanation: explainOccurrence(occurrence, dst, timezone),
        start: offset === null || !occurrence.fires ? null : times(occurrence.at + offset),
      })),
      job: job === null ? null : { id: job.id, name: job.name },
      schedule,
      dst,
      spreadMs,
      spreadOffsetMs: offset,
      jitterMs: job?.policy.jitterMs ?? null,
    };
  }

  private render(result: NextFireTimes, explain: boolean): void {
    if (result.instants.length === 0) {
      this.log(
        result.schedule.kind === 'none'
          ? `Job ${result.job?.name ?? ''} has no schedule of its own: it runs after other jobs, or when triggered.`
          : 'No run left to make.',
      );
      return;
    }
    const shift = { spreadOffsetMs: result.spreadOffsetMs, jitterMs: result.jitterMs };
    for (const instant of result.instants) {
      const line = {
        at: instant.epochMs,
        wall: instant.wall,
        fires: instant.fires,
        skipped: instant.note?.kind === 'skipped',
        explanation: explain ? instant.explanation : null,
      };
      for (const text of formatOccurrenceLines(line, result.timezone, shift)) this.log(text);
    }
  }

  /** The job named by `ref`; a word that names none may have been meant as an expression, so the hint says how. */
  private async findJob(ref: string): Promise<Job> {
    try {
      const client = await this.client();
      return (await client.call('job.get', { ref, upcoming: 0 })).job;
    } catch (error) {
      if (!isSchedError(error)) throw error;
      const extra =
        error.code === 'JOB_NOT_FOUND'
          ? `A single word is read as a job; a cron expression has 5 or 6 fields, such as '0 3 * * *', or is a macro such as @daily.`
          : error.code === 'DAEMON_UNAVAILABLE'
            ? `A job's next runs need the daemon; a cron expression (such as '0 3 * * *') does not.`
            : null;
      if (extra === null) throw error;
      throw new SchedError(error.code, error.message, {
        hint: error.hint === undefined ? extra : `${extra} ${error.hint}`,
        details: error.details,
      });
    }
  }
}

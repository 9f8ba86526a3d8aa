import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { formatFireTime } from '../cli/format/fire-time.js';
import { formatLocalIso, hostTimeZone } from '../cli/format/time.js';

export interface FireInstant {
  /** UTC, ISO 8601. */
  at: string;
  epochMs: number;
  /** Wall time in the schedule's zone, with its offset. */
  local: string;
}

export interface NextFireTimes {
  expression: string;
  timezone: string;
  instants: FireInstant[];
}

export default class Next extends SchedCommand {
  static override summary = 'Show when a cron expression would fire. Needs no daemon.';
  static override description = `Each time is shown in the schedule's zone, with its UTC offset, and in UTC, so daylight-saving shifts are easy to check before a job goes live.`;

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
      description: 'From a local time, as JSON.',
      command:
        "<%= config.bin %> <%= command.id %> '*/15 * * * *' --tz Asia/Kolkata --from '2026-06-01 08:00' --json",
    },
  ];

  static override args = {
    expression: Args.string({
      description: 'Cron expression (5 fields, or 6 with seconds first).',
      required: true,
      ignoreStdin: true,
    }),
  };

  static override flags = {
    tz: Flags.string({ summary: "IANA time zone to evaluate in (default: this host's).", helpValue: 'ZONE' }),
    from: Flags.string({
      summary: 'Start from this time: an ISO instant, or local time in --tz (default: now).',
      helpValue: 'TIME',
    }),
    count: Flags.integer({
      char: 'n',
      summary: 'How many times to show (1-1000).',
      min: 1,
      max: 1000,
      default: 5,
    }),
  };

  async run(): Promise<NextFireTimes> {
    const { args, flags } = await this.parse(Next);
    const [{ assertTimezone }, { assertCronExpression }, { nextFireTimes }, { parseAt }] = await Promise.all([
      import('../core/schedule/timezone.js'),
      import('../core/schedule/cron.js'),
      import('../core/schedule/next.js'),
      import('../core/schedule/at.js'),
    ]);
    const timezone = flags.tz ?? hostTimeZone();
    assertTimezone(timezone);
    assertCronExpression(args.expression);
    // parseAt reads an instant with an offset as is, and anything else as wall time in the zone.
    const from = flags.from === undefined ? Date.now() : parseAt(flags.from, timezone);

    // nextFireTimes counts strictly after its instant; "from" reads as inclusive.
    const times = nextFireTimes(
      { kind: 'cron', expression: args.expression },
      from - 1,
      timezone,
      flags.count,
    );
    const result: NextFireTimes = {
      expression: args.expression,
      timezone,
      instants: times.map((ms) => ({
        at: new Date(ms).toISOString(),
        epochMs: ms,
        local: formatLocalIso(ms, timezone),
      })),
    };

    if (!this.jsonEnabled()) for (const ms of times) this.log(formatFireTime(ms, timezone));
    return result;
  }
}

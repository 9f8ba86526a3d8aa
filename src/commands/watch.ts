import { once } from 'node:events';
import { Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { describeSchedule } from '../core/schedule/describe.js';
import { describeExit, runDurationMs } from '../cli/format/run-detail.js';
import { colourRunState } from '../cli/format/state.js';
import { formatInstant, formatRelative } from '../cli/format/time.js';
import { formatDuration } from '../core/duration.js';
import { SchedError } from '../core/errors.js';
import type { StreamEvent } from '../ipc/protocol.js';
import { PUBLISHED_EVENT_TYPES } from '../ipc/stream-event-types.js';

const EVENT_TYPES = PUBLISHED_EVENT_TYPES;

export default class Watch extends SchedCommand {
  static override summary = "Print the daemon's events as they happen: one line each, or JSON lines.";
  static override description = `Runs until interrupted, the daemon stops (exit 7), or --count events were printed. With --json each event is one JSON object a line: {"type", "at", "data", "node", "id"}, where data is the job or run as \`show\` and \`logs\` print them, node the daemon it happened on, and id (job and run events) its number in the store's event log. Where several daemons share a PostgreSQL store, every node's job and run events are shown.

--since ID first prints the job and run events still kept after that id (kept a day, see retention), then goes on live, missing and repeating none: a reader that was cut off resumes from the last id it printed.

A reader that falls too far behind is dropped by the daemon, which never waits for it; sched watch then says why and exits 7.`;

  static override examples = [
    { description: 'Watch everything.', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'Finished runs as JSON lines, for a script.',
      command: '<%= config.bin %> <%= command.id %> --type run:finished --json | jq .data.state',
    },
    {
      description: 'Wait for the next run to finish.',
      command: '<%= config.bin %> <%= command.id %> --type run:finished --count 1',
    },
  ];

  static override flags = {
    type: Flags.option({
      summary: 'Only events of this type (repeatable).',
      options: EVENT_TYPES,
      multiple: true,
      multipleNonGreedy: true,
    })(),
    run: Flags.string({
      summary: 'Only the events of this run (its output too); a unique start of its id will do.',
      helpValue: 'RUN',
    }),
    count: Flags.integer({ char: 'n', summary: 'Stop after this many events.', min: 1 }),
    since: Flags.string({
      summary:
        'First the job and run events still kept after this event id (the "id" of a --json line), then live.',
      helpValue: 'ID',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Watch);
    const client = await this.client();
    // A shortened run id names a run only once the daemon has resolved it; the stream filters by full id.
    const runId = flags.run === undefined ? undefined : (await client.call('run.get', { id: flags.run })).id;
    const since = flags.since === undefined ? undefined : parseEventId(flags.since, this.config.bin);
    const events = client.subscribe({ types: flags.type, runId, since });
    await events.ready;
    // `sched watch | head -1` closes the pipe: that is the reader being done, not a failure.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
    });
    const zone = this.viewer().zone;
    let printed = 0;
    for await (const event of events) {
      const line = this.jsonEnabled() ? JSON.stringify(event) : describeEvent(event, zone, events.shared);
      // Waiting for a slow pipe lets events queue in this process, which gives up past a bound with a
      // clear reason; the daemon is never the one that waits.
      if (!process.stdout.write(`${line}\n`)) await once(process.stdout, 'drain');
      printed += 1;
      if (flags.count !== undefined && printed >= flags.count) return;
    }
    throw new SchedError('DAEMON_UNAVAILABLE', 'The daemon closed the event stream.', {
      hint: `It stopped or restarted; run \`${this.config.bin} watch\` again once it is up.`,
    });
  }
}

/** An event id as `--since` takes it: a whole number, 0 for every event still kept. */
function parseEventId(value: string, bin: string): number {
  if (/^[0-9]{1,15}$/.test(value.trim())) return Number(value.trim());
  throw new SchedError('VALIDATION_FAILED', `--since takes an event id (a whole number), not "${value}".`, {
    hint: `Use the "id" of an event that \`${bin} watch --json\` printed, or --since 0 for every event still kept.`,
  });
}

/**
 * `2026-06-01 10:00:00 CEST  run:finished        nightly  run 0193…  succeeded, exit 0, took 1s`; where
 * several nodes share the store, the node comes after the type (`  on web-1`).
 */
export function describeEvent(event: StreamEvent, zone: string, nameNode = false): string {
  const node = nameNode && event.node !== undefined ? `on ${event.node}  ` : '';
  return `${formatInstant(event.at, zone)}  ${event.type.padEnd(19)}  ${node}${eventFacts(event)}`;
}

function eventFacts(event: StreamEvent): string {
  switch (event.type) {
    case 'daemon:started':
      return `pid ${event.data.pid}`;
    case 'daemon:stopping':
      return event.data.reason;
    case 'job:created':
      return `${event.data.name}  ${describeSchedule(event.data.schedule, event.data.timezone)}`;
    case 'job:updated':
      return `${event.data.name}  ${event.data.state}, version ${event.data.version}`;
    case 'job:cancelled':
      return event.data.name;
    case 'run:started':
      return `run ${event.data.runId}${event.data.pid === null ? '' : `  pid ${event.data.pid}`}`;
    case 'run:output': {
      const text = JSON.stringify(event.data.data);
      return `run ${event.data.runId}  ${event.data.stream} ${text.length > 80 ? `${text.slice(0, 79)}…` : text}`;
    }
    case 'run:fired':
    case 'run:retry-scheduled': {
      const run = event.data;
      const due = run.dueAt > event.at ? `, due ${formatRelative(run.dueAt, event.at)}` : '';
      return `${run.jobName}  run ${run.id}  attempt ${run.attempt} (${run.trigger})${due}`;
    }
    case 'run:finished':
    case 'run:lost':
    case 'run:dead': {
      const run = event.data;
      const took = runDurationMs(run, event.at);
      // The state alone: whether a retry follows is the next event's news (run:retry-scheduled or run:dead).
      const facts = [
        colourRunState(run.state),
        describeExit(run),
        took === null ? '' : `took ${formatDuration(took)}`,
      ];
      const error = run.error ? ` (${run.error})` : '';
      return `${run.jobName}  run ${run.id}  ${facts.filter(Boolean).join(', ')}${error}`;
    }
    case 'occurrence:recorded': {
      const entry = event.data;
      return `${entry.jobName}  ${entry.outcome} ${new Date(entry.scheduledFor).toISOString()}  (${entry.reason})`;
    }
    case 'stream:dropped':
      return event.data.reason;
    default:
      // A type this version does not know yet (a newer daemon): its payload as it came.
      return JSON.stringify((event as { data: unknown }).data);
  }
}

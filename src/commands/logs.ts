import { Args, Flags } from '@oclif/core';
import { chalkStderr } from 'chalk';
import { SchedCommand } from '../cli/base-command.js';
import { renderResponseHeaders, renderRunHeadline } from '../cli/format/run-detail.js';
import type { DaemonClient } from '../client/daemon-client.js';
import { subscribe } from '../client/event-subscription.js';
import { SchedError } from '../core/errors.js';
import { isFinalRunState, type Run } from '../core/run.js';

export default class Logs extends SchedCommand {
  static override summary = "Print a run's output: its stdout to stdout and its stderr to stderr.";
  static override description = `The streams stay apart so the output can be piped; the line about the run itself goes to stderr.

Only the last 64 KiB of each stream is kept. For an HTTP run, the response status is in that line, the response headers follow it on stderr, and the first 64 KiB of the response body go to stdout.

With --follow, a run that has not ended is followed: its output is printed as the run writes it, and the line saying how it ended comes last. With --json, --follow waits for the end and prints the finished run.`;

  static override examples = [
    {
      description: "Show a run's output.",
      command: '<%= config.bin %> <%= command.id %> 01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44',
    },
    {
      description: 'Search the stdout of a run.',
      command: '<%= config.bin %> <%= command.id %> 01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44 | grep ERROR',
    },
    {
      description: 'Follow a running run until it ends.',
      command: '<%= config.bin %> <%= command.id %> --follow 01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44',
    },
    {
      description: 'The whole run record, as JSON.',
      command: '<%= config.bin %> <%= command.id %> 01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44 --json',
    },
  ];

  static override args = {
    run: Args.string({
      description: 'Id of the run (from `sched history` or `sched trigger`).',
      required: true,
      ignoreStdin: true,
    }),
  };

  static override flags = {
    follow: Flags.boolean({
      char: 'f',
      summary: 'Print the output live until the run ends, then how it ended.',
    }),
  };

  async run(): Promise<Run> {
    const { args, flags } = await this.parse(Logs);
    const client = await this.client();
    if (flags.follow) return this.follow(client, args.run);
    const run = await client.call('run.get', { id: args.run });

    if (!this.jsonEnabled()) {
      this.logToStderr(renderRunHeadline(run, Date.now(), chalkStderr));
      if (run.responseHeaders !== null && Object.keys(run.responseHeaders).length > 0)
        this.logToStderr(renderResponseHeaders(run.responseHeaders));
      process.stdout.write(endWithNewline(run.stdoutTail));
      process.stderr.write(endWithNewline(run.stderrTail));
    }
    return run;
  }

  /**
   * Subscribes first, then reads the run, so no output falls between the two; prints what the daemon
   * kept, then live chunks as they come, then how the run ended. Output the daemon sent no live chunks
   * for is printed from the end state instead.
   */
  private async follow(client: DaemonClient, id: string): Promise<Run> {
    const events = subscribe(client, {
      runId: id,
      types: ['run:output', 'run:finished', 'run:lost', 'run:dead'],
    });
    await events.ready;
    const human = !this.jsonEnabled();
    const first = await client.call('run.get', { id });
    if (isFinalRunState(first.state)) {
      await events.return();
      if (human) this.printEnded(first);
      return first;
    }
    if (human) this.logToStderr(renderRunHeadline(first, Date.now(), chalkStderr));
    const write = (stream: NodeJS.WriteStream) => (text: string) => void (human && stream.write(text));
    const echoes = {
      stdout: new StreamEcho(first.stdoutTail, write(process.stdout)),
      stderr: new StreamEcho(first.stderrTail, write(process.stderr)),
    };
    for await (const event of events) {
      if (event.type === 'run:output') {
        echoes[event.data.stream].chunk(event.data.data);
        continue;
      }
      const ended = event.type === 'run:finished' || event.type === 'run:lost' || event.type === 'run:dead';
      if (!ended || event.data.id !== id || !isFinalRunState(event.data.state)) continue;
      await events.return();
      const run = event.data;
      if (human) {
        const missed = [echoes.stdout.finish(run.stdoutTail), echoes.stderr.finish(run.stderrTail)];
        (['stdout', 'stderr'] as const).forEach((stream, index) => {
          if (missed[index]! > 0)
            this.logToStderr(
              `(${missed[index]} bytes of ${stream} came before following began; \`${this.config.bin} logs ${id}\` shows all that was kept)`,
            );
        });
        this.logToStderr(renderRunHeadline(run, Date.now(), chalkStderr));
      }
      return run;
    }
    throw new SchedError('DAEMON_UNAVAILABLE', `The daemon closed the connection before run ${id} ended.`, {
      hint: `\`${this.config.bin} logs ${id}\` shows what it kept, once the daemon is back.`,
    });
  }

  /** A run that had already ended prints as `sched logs` prints it. */
  private printEnded(run: Run): void {
    this.logToStderr(renderRunHeadline(run, Date.now(), chalkStderr));
    if (run.responseHeaders !== null && Object.keys(run.responseHeaders).length > 0)
      this.logToStderr(renderResponseHeaders(run.responseHeaders));
    process.stdout.write(endWithNewline(run.stdoutTail));
    process.stderr.write(endWithNewline(run.stderrTail));
  }
}

/** What is remembered of a followed stream, to compare with what the daemon kept: more than it keeps. */
const SHOWN_LIMIT = 128 * 1024;

/**
 * One output stream of a followed run. The daemon's first answer may already hold the first live chunks
 * (when it keeps a tail while a run runs); those are held back until it is clear whether they are the
 * tail's last bytes, and dropped if so. At the end, the kept tail shows what never came live.
 */
export class StreamEcho {
  private pending: string[] | null;
  private shown = '';

  constructor(
    private readonly initialTail: string,
    private readonly write: (text: string) => void,
  ) {
    this.pending = initialTail === '' ? null : [];
    this.print(initialTail);
  }

  chunk(data: string): void {
    if (this.pending === null) return this.print(data);
    this.pending.push(data);
    if (this.initialTail.endsWith(this.pending.join(''))) return;
    const fresh = this.pending.slice(chunksInTail(this.initialTail, this.pending));
    this.pending = null;
    for (const text of fresh) this.print(text);
  }

  /**
   * At the end, the kept tail is what the run printed before following began, then what was shown,
   * then what had not come live yet (the daemon may report the end before the last chunk). Prints the
   * last part, or the whole tail when nothing came live; returns the size of the first part, or 0.
   */
  finish(finalTail: string): number {
    if (this.pending !== null) this.pending = null; // all of it was in the first answer
    if (this.shown === '') {
      this.print(endWithNewline(finalTail));
      return 0;
    }
    const at = finalTail.lastIndexOf(this.shown);
    if (at === -1) return 0;
    this.print(finalTail.slice(at + this.shown.length));
    return Buffer.byteLength(finalTail.slice(0, at));
  }

  private print(text: string): void {
    if (text === '') return;
    this.write(text);
    this.shown = (this.shown + text).slice(-SHOWN_LIMIT);
  }
}

/**
 * Chunks that reached us before `run.get` answered may already be in the tail it returned (when the
 * daemon keeps a live tail). They are the tail's last bytes, so the leading chunks that the tail ends
 * with were printed with it.
 */
export function chunksInTail(tail: string, chunks: readonly string[]): number {
  if (tail === '') return 0;
  for (let count = chunks.length; count > 0; count -= 1) {
    if (tail.endsWith(chunks.slice(0, count).join(''))) return count;
  }
  return 0;
}

function endWithNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

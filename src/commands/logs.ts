import { Args, Flags } from '@oclif/core';
import { chalkStderr } from 'chalk';
import { SchedCommand } from '../cli/base-command.js';
import { describeCutOutput, renderResponseHeaders, renderRunHeadline } from '../cli/format/run-detail.js';
import type { SchedClient } from '../client/sched-client.js';
import { SchedError } from '../core/errors.js';
import { isFinalRunState, type Run } from '../core/run.js';

export default class Logs extends SchedCommand {
  static override summary = "Print a run's output: its stdout to stdout and its stderr to stderr.";
  static override description = `The streams stay apart so the output can be piped; the line about the run itself goes to stderr.

RUN is a run id or any unique start of it (at least 4 characters, as git takes commits); a job's name or id shows the job's latest run. A run that is still running shows what it printed so far.

Only the last 64 KiB of each stream is kept; when a run wrote more, a line on stderr says how much was cut. For an HTTP run, the response status is in that line, the response headers follow it on stderr, and the first 64 KiB of the response body go to stdout.

With --follow, a run that has not ended is followed: what it printed so far, then its output as the run writes it, and the line saying how it ended comes last. With --json, --follow waits for the end and prints the finished run.`;

  static override examples = [
    {
      description: "Show a run's output.",
      command: '<%= config.bin %> <%= command.id %> 01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44',
    },
    {
      description: 'Show the latest run of the job nightly, or a run by the start of its id.',
      command: '<%= config.bin %> <%= command.id %> nightly',
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
      description:
        'Id of the run or a unique start of it (from `sched history` or `sched trigger`), or a job whose latest run to show.',
      required: true,
      ignoreStdin: true,
    }),
  };

  static override flags = {
    follow: Flags.boolean({
      char: 'f',
      summary: 'Print the output so far, then live until the run ends, then how it ended.',
    }),
  };

  async run(): Promise<Run> {
    const { args, flags } = await this.parse(Logs);
    const client = await this.client();
    const run = await client.call('run.get', { id: args.run, orJob: true });
    if (flags.follow && !isFinalRunState(run.state)) return this.follow(client, run.id);
    if (!this.jsonEnabled()) this.printRun(run);
    return run;
  }

  /**
   * Subscribes first, then reads the run: the daemon numbers each chunk of output and says which ones the
   * tail it answers with holds, so the chunks after it are printed and the others dropped: no gap and no
   * repeat. A stream that showed nothing live prints its kept tail at the end (an HTTP body, say).
   */
  private async follow(client: SchedClient, id: string): Promise<Run> {
    const events = client.subscribe({
      runId: id,
      types: ['run:output', 'run:finished', 'run:lost', 'run:dead'],
    });
    await events.ready;
    const human = !this.jsonEnabled();
    const first = await client.call('run.get', { id });
    if (isFinalRunState(first.state)) {
      await events.return();
      if (human) this.printRun(first);
      return first;
    }
    const shown = { stdout: first.stdoutTail !== '', stderr: first.stderrTail !== '' };
    if (human) {
      this.logToStderr(renderRunHeadline(first, Date.now(), chalkStderr));
      this.printCut(first);
      process.stdout.write(first.stdoutTail);
      process.stderr.write(first.stderrTail);
    }
    const seenUpTo = first.outputSeq ?? 0;
    for await (const event of events) {
      if (event.type === 'run:output') {
        if (event.data.seq <= seenUpTo) continue;
        shown[event.data.stream] = true;
        if (human) (event.data.stream === 'stdout' ? process.stdout : process.stderr).write(event.data.data);
        continue;
      }
      const ended = event.type === 'run:finished' || event.type === 'run:lost' || event.type === 'run:dead';
      if (!ended || event.data.id !== id || !isFinalRunState(event.data.state)) continue;
      await events.return();
      const run = event.data;
      if (human) {
        if (!shown.stdout) process.stdout.write(endWithNewline(run.stdoutTail));
        if (!shown.stderr) process.stderr.write(endWithNewline(run.stderrTail));
        this.logToStderr(renderRunHeadline(run, Date.now(), chalkStderr));
      }
      return run;
    }
    throw new SchedError('DAEMON_UNAVAILABLE', `The daemon closed the connection before run ${id} ended.`, {
      hint: `\`${this.config.bin} logs ${id}\` shows what it kept, once the daemon is back.`,
    });
  }

  private printRun(run: Run): void {
    this.logToStderr(renderRunHeadline(run, Date.now(), chalkStderr));
    if (run.responseHeaders !== null && Object.keys(run.responseHeaders).length > 0)
      this.logToStderr(renderResponseHeaders(run.responseHeaders));
    this.printCut(run);
    process.stdout.write(endWithNewline(run.stdoutTail));
    process.stderr.write(endWithNewline(run.stderrTail));
  }

  private printCut(run: Run): void {
    for (const line of describeCutOutput(run)) this.logToStderr(line);
  }
}

function endWithNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

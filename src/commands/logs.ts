import { Args } from '@oclif/core';
import { chalkStderr } from 'chalk';
import { SchedCommand } from '../cli/base-command.js';
import { renderResponseHeaders, renderRunHeadline } from '../cli/format/run-detail.js';
import type { Run } from '../core/run.js';

export default class Logs extends SchedCommand {
  static override summary = "Print a run's output: its stdout to stdout and its stderr to stderr.";
  static override description = `The streams stay apart so the output can be piped; the line about the run itself goes to stderr.

Only the last 64 KiB of each stream is kept. For an HTTP run, the response status is in that line, the response headers follow it on stderr, and the first 64 KiB of the response body go to stdout.`;

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

  async run(): Promise<Run> {
    const { args } = await this.parse(Logs);
    const client = await this.client();
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
}

function endWithNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { parseKeyValuePairs } from '../cli/key-value.js';
import { withUpstreamNames } from '../cli/portable-definition.js';
import { loadConfig } from '../config/load.js';
import { formatCrontab } from '../core/crontab/format.js';
import { SchedError } from '../core/errors.js';
import { jobDefinitionSchema, type Job, type JobDefinition } from '../core/job.js';

/** `--format json`: what `sched import json` reads back. */
export interface JobExport {
  sched: 'jobs';
  version: 1;
  jobs: JobDefinition[];
  /** The names of the jobs that are paused (a definition has no state). */
  paused: string[];
}

export interface CrontabExportResult {
  format: 'crontab';
  text: string;
  skipped: { name: string; reason: string }[];
}

export default class Export extends SchedCommand {
  static override summary = 'Write the jobs out, as JSON to import elsewhere or as a crontab.';
  static override description = `JSON holds every job's whole definition (what \`sched import json\` needs to re-create it), with the jobs it runs after (--after, --after-all) by name; a crontab holds the cron jobs that run commands, with CRON_TZ, SHELL and variable lines where they change, and a comment for each job it cannot express (--every, --at, HTTP jobs). Paused jobs are exported too (in a crontab, commented out); cancelled ones are not.`;

  static override examples = [
    {
      description: 'Back up every job definition.',
      command: '<%= config.bin %> <%= command.id %> -o jobs.json',
    },
    {
      description: 'See the cron jobs as a crontab.',
      command: '<%= config.bin %> <%= command.id %> --format crontab',
    },
    {
      description: 'Only the jobs imported from a crontab.',
      command: '<%= config.bin %> <%= command.id %> --format crontab --label source=crontab',
    },
  ];

  static override flags = {
    format: Flags.string({ summary: 'What to write.', options: ['json', 'crontab'], default: 'json' }),
    output: Flags.string({
      char: 'o',
      summary: 'Write to this file instead of standard output.',
      helpValue: 'FILE',
    }),
    reveal: Flags.boolean({
      summary:
        'Write secret values (env, header values, payloads) in clear, for an import elsewhere: admins only, audited. Without it they are written as •••, which `sched import json` refuses for a job it would create.',
      default: false,
    }),
    label: Flags.string({
      summary: 'Only jobs with this label (repeatable; all must match).',
      helpValue: 'KEY=VALUE',
      multiple: true,
      multipleNonGreedy: true,
    }),
  };

  async run(): Promise<JobExport | CrontabExportResult> {
    const { flags } = await this.parse(Export);
    const labels = parseKeyValuePairs(flags.label, 'label');
    const jobs = await this.liveJobs(labels, flags.reveal);
    let result: JobExport | CrontabExportResult;
    let text: string;
    if (flags.format === 'crontab') {
      const crontab = formatCrontab(
        jobs.map((job) => ({ ...jobDefinitionSchema.parse(job), state: job.state })),
        { hostTimezone: loadConfig(process.env).timezone, homeDirectory: os.homedir() },
      );
      result = { format: 'crontab', ...crontab };
      text = crontab.text;
    } else {
      // Upstream jobs may lie outside the --label filter; their names come from every live job.
      const everyJob = labels === undefined ? jobs : await this.liveJobs(undefined, false);
      const names = new Map(everyJob.map((job) => [job.id, job.name]));
      const definitions = jobs.map((job) => {
        const { definition, unresolved } = withUpstreamNames(jobDefinitionSchema.parse(job), (id) =>
          names.get(id),
        );
        for (const id of this.jsonEnabled() ? [] : unresolved)
          process.stderr.write(
            `Note: ${job.name} runs after job ${id}, which is cancelled or gone; the file names it by that id.\n`,
          );
        return definition;
      });
      result = {
        sched: 'jobs',
        version: 1,
        jobs: definitions,
        paused: jobs.filter((job) => job.state === 'paused').map((job) => job.name),
      };
      text = `${JSON.stringify(result, null, 2)}\n`;
    }

    if (flags.output !== undefined) {
      await writeFile(flags.output, text).catch((error: NodeJS.ErrnoException) => {
        throw new SchedError(
          'VALIDATION_FAILED',
          `Cannot write ${flags.output} (${error.code ?? 'error'}).`,
          {
            hint: 'Give a path in a writable directory, or leave out --output to print to standard output.',
          },
        );
      });
      if (!this.jsonEnabled())
        this.log(`Wrote ${jobs.length} job${jobs.length === 1 ? '' : 's'} to ${flags.output}.`);
    } else if (!this.jsonEnabled()) {
      process.stdout.write(text);
    }
    if (!this.jsonEnabled() && 'skipped' in result)
      for (const { name, reason } of result.skipped)
        process.stderr.write(`Not written: ${name}: ${reason}.\n`);
    return result;
  }

  /** Active and paused jobs, oldest first (the order they were added in), all pages. */
  private async liveJobs(labels: Record<string, string> | undefined, reveal: boolean): Promise<Job[]> {
    const client = await this.client();
    const jobs: Job[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.call('job.list', {
        limit: 1000,
        cursor,
        labels,
        ...(reveal ? { reveal: true } : {}),
      });
      jobs.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return jobs;
  }
}

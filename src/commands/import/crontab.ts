import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';
import { renderTable } from '../../cli/format/table.js';
import { parseCrontab } from '../../core/crontab/parse.js';
import { planImport, type ImportPlan } from '../../core/crontab/plan.js';
import { crontabJobs } from '../../core/crontab/to-jobs.js';
import { ERROR_CODES, SchedError, isSchedError } from '../../core/errors.js';
import { maskedInputPlaces } from '../../core/secrets/mask.js';
import type { Job, JobInput } from '../../core/job.js';

/** One job an import brings, whatever it was read from. */
export interface ImportItem {
  name: string;
  input: JobInput;
  idempotencyKey: string;
  /** The crontab line it came from, if it came from a crontab. */
  line: number | null;
  /** Created paused (the export listed it so), in the same request, so it cannot fire in between. */
  paused?: boolean;
  schedule: string;
  command: string;
}

/** Something the import read but will not (or not exactly) turn into a job. */
export interface ImportNote {
  line: number | null;
  text: string;
  reason: string;
}

export interface ImportedJob {
  name: string;
  action: 'create' | 'unchanged' | 'conflict';
  line: number | null;
  schedule: string;
  command: string;
  reason: string | null;
  outcome: 'created' | 'failed' | null;
  error: { code: string; message: string } | null;
}

export interface ImportReport {
  source: string;
  applied: boolean;
  jobs: ImportedJob[];
  unsupported: ImportNote[];
  warnings: ImportNote[];
}

export const importFlags = {
  yes: Flags.boolean({ char: 'y', summary: 'Apply the plan without asking.' }),
  'dry-run': Flags.boolean({ summary: 'Only show the plan; change nothing.', exclusive: ['yes'] }),
};

/**
 * What every `sched import` shares: read the input, show the plan against the jobs the daemon has, ask
 * (or take --yes), then create the new jobs one by one and report each outcome.
 */
export abstract class JobImportCommand extends SchedCommand {
  /** The input text: a file, `-` for standard input. */
  protected async readSource(file: string): Promise<string> {
    if (file === '-') return readStandardInput();
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new SchedError('VALIDATION_FAILED', `Cannot read ${file} (${code}).`, {
        hint: 'Give the path of a readable file, or - to read standard input.',
        details: { path: file, errno: code },
      });
    }
  }

  /** Every live job, all pages. */
  protected async existingJobs(): Promise<Job[]> {
    const client = await this.client();
    const jobs: Job[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.call('job.list', { limit: 1000, cursor });
      jobs.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return jobs;
  }

  protected async carryOut(
    plan: ImportPlan<ImportItem>,
    notes: { unsupported: ImportNote[]; warnings: ImportNote[] },
    options: {
      source: string;
      yes: boolean;
      dryRun: boolean;
      stdinUsed: boolean;
    },
  ): Promise<ImportReport> {
    const report: ImportReport = {
      source: options.source,
      applied: false,
      jobs: [
        ...plan.create.map((item) => imported(item, 'create', null)),
        ...plan.unchanged.map((item) => imported(item, 'unchanged', null)),
        ...plan.conflicts.map(({ item, reason }) => imported(item, 'conflict', reason)),
      ].sort((a, b) => (a.line ?? 0) - (b.line ?? 0)),
      ...notes,
    };
    if (!this.jsonEnabled()) this.showPlan(report);
    refuseMaskedSecrets(plan.create, options.source);
    if (options.dryRun) return report;
    if (plan.create.length === 0) {
      if (!this.jsonEnabled()) this.log('Nothing to create.');
      return this.finish(report);
    }
    if (!options.yes && !(await this.confirm(plan.create.length, options.stdinUsed))) {
      if (!this.jsonEnabled()) this.log('Nothing changed.');
      return report;
    }
    const client = await this.client();
    for (const item of plan.create) {
      const job = report.jobs.find((entry) => entry.name === item.name && entry.action === 'create');
      if (job === undefined) continue;
      try {
        await client.call('job.add', {
          input: item.input,
          idempotencyKey: item.idempotencyKey,
          ...(item.paused ? { paused: true } : {}),
        });
        job.outcome = 'created';
      } catch (error) {
        if (!isSchedError(error) || error.code === 'DAEMON_UNAVAILABLE') throw error;
        job.outcome = 'failed';
        job.error = { code: error.code, message: error.message };
      }
    }
    report.applied = true;
    if (!this.jsonEnabled()) {
      const created = report.jobs.filter((job) => job.outcome === 'created').length;
      this.log(`Created ${created} job${created === 1 ? '' : 's'}.`);
    }
    return this.finish(report);
  }

  /**
   * The report is the output even when some jobs were not imported; the exit code says so: the code of
   * the first failure, or 4 when a name was held by another job.
   */
  private finish(report: ImportReport): ImportReport {
    const failed = report.jobs.filter((job) => job.outcome === 'failed');
    if (!this.jsonEnabled())
      for (const job of failed) this.log(`Failed: ${job.name}: ${job.error?.message ?? ''}`);
    const first = failed[0]?.error?.code as keyof typeof ERROR_CODES | undefined;
    const conflicted = report.jobs.some((job) => job.action === 'conflict');
    const code = first !== undefined ? (ERROR_CODES[first] ?? 1) : conflicted ? ERROR_CODES.NAME_TAKEN : 0;
    if (code === 0) return report;
    if (this.jsonEnabled()) this.logJson(report);
    this.exit(code);
  }

  private showPlan(report: ImportReport): void {
    const count = (action: ImportedJob['action']) =>
      report.jobs.filter((job) => job.action === action).length;
    this.log(
      `${report.source}: ${count('create')} to create, ${count('unchanged')} already there, ` +
        `${count('conflict')} in conflict, ${report.unsupported.length} not imported.`,
    );
    if (report.jobs.length > 0) {
      this.log('');
      const rows = report.jobs.map((job) => [
        job.action,
        job.line === null ? '' : String(job.line),
        job.name,
        job.schedule,
        oneLine(job.command) + (job.reason === null ? '' : `  (${job.reason})`),
      ]);
      this.log(
        renderTable(
          [
            { header: 'ACTION' },
            { header: 'LINE', align: 'right' },
            { header: 'NAME' },
            { header: 'SCHEDULE' },
            { header: 'COMMAND' },
          ],
          rows,
        ),
      );
    }
    for (const [title, list] of [
      ['Not imported', report.unsupported],
      ['Warnings', report.warnings],
    ] as const) {
      if (list.length === 0) continue;
      this.log(`\n${title}:`);
      for (const note of list)
        this.log(
          `  ${note.line === null ? '' : `line ${note.line}: `}${oneLine(note.text)}\n    ${note.reason}`,
        );
    }
    this.log('');
  }

  private async confirm(count: number, stdinUsed: boolean): Promise<boolean> {
    if (stdinUsed || !process.stdin.isTTY || !process.stderr.isTTY) {
      throw new SchedError(
        'VALIDATION_FAILED',
        'Not applied: there is no terminal to ask for confirmation on.',
        {
          hint: 'Run again with --yes to apply this plan, or with --dry-run to only show it.',
        },
      );
    }
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await prompt.question(`Create ${count} job${count === 1 ? '' : 's'}? [y/N] `);
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      prompt.close();
    }
  }
}

function imported(item: ImportItem, action: ImportedJob['action'], reason: string | null): ImportedJob {
  const { name, line, schedule, command } = item;
  return { name, action, line, schedule, command, reason, outcome: null, error: null };
}

function oneLine(text: string): string {
  const flat = text.replaceAll('\n', '⏎');
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

function readStandardInput(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  });
}

export default class ImportCrontab extends JobImportCommand {
  static override summary = 'Turn a crontab into sched jobs, after showing what will happen.';
  static override description = `Reads FILE, - for standard input, or your crontab (crontab -l). Each job line becomes a job that runs its command with /bin/sh -c (or with SHELL, when the crontab sets one), in CRON_TZ's zone, with the variables set above it; text after % is its standard input, as in cron. The jobs are labelled source=crontab and named after what they do, so importing the same crontab again adds only the lines that are new.

Lines that cannot become jobs are listed, never dropped silently: @reboot, MAILTO (sched keeps each run's output instead), and anything that does not parse. /etc/crontab and /etc/cron.d files have a user field; it is read as such for those paths, or with --system-format. The jobs run as the daemon's user, in your home directory (as cron runs them).`;

  static override examples = [
    { description: 'Import your crontab, after confirming.', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'See what a file would give, changing nothing.',
      command: '<%= config.bin %> <%= command.id %> backup.crontab --dry-run',
    },
    {
      description: 'Import from a script: no question asked.',
      command: 'crontab -l | <%= config.bin %> <%= command.id %> - --yes --json',
    },
    {
      description: 'A system crontab, its lines without CRON_TZ read in UTC.',
      command: 'sudo <%= config.bin %> <%= command.id %> /etc/cron.d/backup --tz UTC',
    },
  ];

  static override args = {
    file: Args.string({
      description: 'A crontab file, or - for standard input (default: your crontab, from crontab -l).',
      ignoreStdin: true,
    }),
  };

  static override flags = {
    ...importFlags,
    'system-format': Flags.boolean({
      summary: 'Lines have a user field after the time fields (default: for /etc/crontab and /etc/cron.d).',
      allowNo: true,
    }),
    tz: Flags.string({
      summary: "Zone for lines before any CRON_TZ (default: the daemon's).",
      helpValue: 'ZONE',
    }),
  };

  async run(): Promise<ImportReport> {
    const { args, flags } = await this.parse(ImportCrontab);
    const source = args.file === undefined ? 'crontab -l' : args.file === '-' ? 'standard input' : args.file;
    const text = args.file === undefined ? await currentCrontab() : await this.readSource(args.file);
    const systemFormat = flags['system-format'] ?? isSystemCrontabPath(args.file);
    const parsed = parseCrontab(text, { systemFormat, userNames: systemUserNames() });
    const items: ImportItem[] = crontabJobs(parsed.entries, { timezone: flags.tz }).map((job) => ({
      name: job.name,
      // cron starts a user's jobs in their home directory; relative paths in the line mean the same here.
      input: { ...job.input, cwd: os.homedir() },
      idempotencyKey: job.idempotencyKey,
      line: job.entry.line,
      schedule:
        job.entry.timezone === null ? job.entry.schedule : `${job.entry.schedule} (${job.entry.timezone})`,
      command:
        job.entry.stdin === null
          ? job.entry.command
          : `${job.entry.command}  [stdin: ${JSON.stringify(job.entry.stdin)}]`,
    }));
    const plan = planImport(
      items,
      await this.existingJobs(),
      (_item, job) => job.labels.source === 'crontab',
      (item) => `a job named ${item.name} exists and did not come from a crontab`,
    );
    return this.carryOut(plan, parsed, {
      source,
      yes: flags.yes,
      dryRun: flags['dry-run'],
      stdinUsed: args.file === '-',
    });
  }
}

function isSystemCrontabPath(file: string | undefined): boolean {
  if (file === undefined || file === '-') return false;
  const absolute = path.resolve(file);
  return absolute === '/etc/crontab' || absolute.startsWith('/etc/cron.d/');
}

/** The host's user names, to notice a system crontab read as a user one. */
function systemUserNames(): string[] {
  try {
    return fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((line) => line.split(':')[0] ?? '')
      .filter((name) => name !== '');
  } catch {
    return ['root'];
  }
}

function currentCrontab(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('crontab', ['-l'], { maxBuffer: 8 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const reason =
        (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no crontab program' : stderr.trim();
      reject(
        new SchedError('VALIDATION_FAILED', `Cannot read your crontab: ${reason || error.message}.`, {
          hint: 'Give a crontab file to import, or - to read one from standard input.',
        }),
      );
    });
  });
}

/**
 * An export made without --reveal holds ••• for each secret value. Creating a job from it would store •••
 * as the value its command or request gets, so nothing is imported while a job to create holds one (a job
 * already there is left alone, with its own values).
 */
function refuseMaskedSecrets(create: readonly ImportItem[], source: string): void {
  const masked = create
    .map(({ name, input }) => ({ name, places: maskedInputPlaces(input) }))
    .filter(({ places }) => places.length > 0);
  const [first] = masked;
  if (first === undefined) return;
  throw new SchedError(
    'VALIDATION_FAILED',
    `${source}: job ${first.name} has masked secret values (${first.places.join(', ')}), written by an export without --reveal; nothing was imported.`,
    {
      hint: 'Export again with `sched export --reveal` (admins), or put the real values in place of ••• in the file.',
      details: { jobs: masked },
    },
  );
}

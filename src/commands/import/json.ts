import { Args } from '@oclif/core';
import { z } from 'zod';
import {
  alertsInput,
  orderByDependencies,
  timePolicyInput,
  withUpstreamNames,
} from '../../cli/portable-definition.js';
import { contentHash } from '../../core/crontab/content-hash.js';
import { definitionToInput, sameDefinition } from '../../core/crontab/definition-input.js';
import { planImport } from '../../core/crontab/plan.js';
import { formatDuration } from '../../core/duration.js';
import { maskDefinition } from '../../core/secrets/mask.js';
import { SchedError } from '../../core/errors.js';
import { jobDefinitionSchema, type JobDefinition, type Schedule } from '../../core/job.js';
import { withDefinitionDefaults, type StoredDefinition } from '../../core/stored-definition.js';
import {
  importFlags,
  JobImportCommand,
  type ImportItem,
  type ImportNote,
  type ImportReport,
} from './crontab.js';

// What `sched export --format json` writes; a bare array of definitions is read too.
// Files written before a field existed (time policies, dependencies, placement) get its default.
const portableDefinitionSchema = z.preprocess(
  (value) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? withDefinitionDefaults({ ...(value as StoredDefinition) })
      : value,
  jobDefinitionSchema,
);
const exportDocumentSchema = z.object({
  sched: z.literal('jobs'),
  version: z.literal(1),
  jobs: z.array(portableDefinitionSchema),
  paused: z.array(z.string()).optional(),
});
const definitionListSchema = z.array(portableDefinitionSchema);

export default class ImportJson extends JobImportCommand {
  static override summary =
    'Re-create jobs from `sched export --format json`, after showing what will happen.';
  static override description =
    'Jobs whose name is free are created with the same definition; a job that is already there with the ' +
    'same definition is left alone, and one with a different definition is reported and left alone too. ' +
    'An --every job counts its interval from the import. Jobs the export lists as paused are paused. ' +
    'Jobs that run after others (--after, --after-all) name them by name in the file, and are created after them.';

  static override examples = [
    {
      description: 'Move jobs to another host.',
      command:
        '<%= config.bin %> export > jobs.json && scp jobs.json other: && ssh other sched import json jobs.json',
    },
    {
      description: 'Restore without a question.',
      command: '<%= config.bin %> <%= command.id %> jobs.json --yes',
    },
    {
      description: 'From standard input.',
      command: '<%= config.bin %> export | <%= config.bin %> <%= command.id %> - --dry-run',
    },
  ];

  static override args = {
    file: Args.string({
      description: 'A file written by sched export, or - for standard input.',
      required: true,
      ignoreStdin: true,
    }),
  };

  static override flags = { ...importFlags };

  async run(): Promise<ImportReport> {
    const { args, flags } = await this.parse(ImportJson);
    const source = args.file === '-' ? 'standard input' : args.file;
    const { definitions, paused } = readDocument(await this.readSource(args.file), source);
    const items = orderByDependencies(definitions).map((definition) => ({
      ...importItem(definition),
      paused: paused.has(definition.name),
      definition,
    }));
    const existing = await this.existingJobs();
    const names = new Map(existing.map((job) => [job.id, job.name]));
    const plan = planImport(
      items,
      existing,
      // The file names upstream jobs by name, the daemon by id.
      // The daemon lists its jobs with their secret values masked, so those are not compared: a job that
      // is there keeps its own values, whatever the file holds for them.
      (item, job) =>
        sameDefinition(
          maskDefinition(item.definition),
          withUpstreamNames(jobDefinitionSchema.parse(job), (id) => names.get(id)).definition,
        ),
      (item) => `a job named ${item.name} exists with another definition; cancel it first to replace it`,
    );
    const warnings: ImportNote[] = definitions
      .filter((definition) => definition.schedule.kind === 'every')
      .map((definition) => ({
        line: null,
        text: definition.name,
        reason: 'an --every job counts its interval from when it is created, so from this import',
      }));
    return this.carryOut(
      plan,
      { unsupported: [], warnings },
      {
        source,
        yes: flags.yes,
        dryRun: flags['dry-run'],
        stdinUsed: args.file === '-',
      },
    );
  }
}

function readDocument(text: string, source: string): { definitions: JobDefinition[]; paused: Set<string> } {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new SchedError('VALIDATION_FAILED', `${source} is not JSON (${(error as Error).message}).`, {
      hint: 'Give a file written by `sched export --format json`.',
    });
  }
  // Checked against one shape or the other, so that an error names the place in the file.
  const result = Array.isArray(document)
    ? definitionListSchema.safeParse(document)
    : exportDocumentSchema.safeParse(document);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue === undefined ? '' : `${formatPath(issue.path)}: `;
    throw new SchedError('VALIDATION_FAILED', `${source}: ${where}${issue?.message ?? 'not a job export'}.`, {
      hint: 'Give a file written by `sched export --format json` ({"sched": "jobs", "version": 1, "jobs": [...]}).',
      details: {
        issues: result.error.issues.map((each) => ({ path: formatPath(each.path), message: each.message })),
      },
    });
  }
  const definitions = Array.isArray(result.data) ? result.data : result.data.jobs;
  const paused = new Set(Array.isArray(result.data) ? [] : (result.data.paused ?? []));
  const names = new Set<string>();
  for (const { name } of definitions) {
    if (names.has(name))
      throw new SchedError('VALIDATION_FAILED', `${source}: the name ${name} is used by two jobs.`, {
        hint: 'Job names are unique; rename or remove one of them.',
        details: { name },
      });
    names.add(name);
  }
  return { definitions, paused };
}

function importItem(definition: JobDefinition): ImportItem {
  const { schedule, target } = definition;
  return {
    name: definition.name,
    input: { ...definitionToInput(definition), ...timePolicyInput(definition), ...alertsInput(definition) },
    idempotencyKey: `import:${contentHash(JSON.stringify(definition))}`,
    line: null,
    schedule: describeSchedule(schedule),
    command:
      target.kind === 'http'
        ? `${target.method} ${target.url}`
        : (target.shell ?? (target.argv ?? []).join(' ')),
  };
}

function describeSchedule(schedule: Schedule): string {
  if (schedule.kind === 'cron') return schedule.expression;
  if (schedule.kind === 'at') return `at ${new Date(schedule.at).toISOString()}`;
  if (schedule.kind === 'none') return 'no schedule (runs after other jobs)';
  return `every ${formatDuration(schedule.intervalMs)}`;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
}

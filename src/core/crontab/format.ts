import type { JobDefinition, JobState } from '../job.js';
import { encodeCronCommand, fromShellScript, shellQuote, type CronCommand } from './command.js';

export interface CrontabExport {
  text: string;
  /** Jobs written only as a comment, because a crontab cannot say what they do. */
  skipped: { name: string; reason: string }[];
}

type ExportedJob = JobDefinition & { state?: JobState };

interface Context {
  timezone: string;
  shell: string | null;
  env: Record<string, string>;
}

const SHELL_PATH = /^\/[^\s]*\/(sh|bash|dash|zsh|ksh|mksh|ash|fish)$/;

/**
 * Writes jobs as a crontab: CRON_TZ, SHELL and variable lines where they change, then one line per cron
 * job (a paused one commented out). Jobs a crontab cannot express become comments that say why. The
 * inverse of parseCrontab for jobs that came from a crontab, so import, export and import again agree.
 */
export function formatCrontab(
  jobs: readonly ExportedJob[],
  options: { hostTimezone: string; homeDirectory?: string },
): CrontabExport {
  const lines: string[] = [];
  const skipped: CrontabExport['skipped'] = [];
  const context: Context = { timezone: options.hostTimezone, shell: null, env: {} };
  for (const job of jobs) {
    const line = cronLine(job);
    if (typeof line === 'string') {
      skipped.push({ name: job.name, reason: line });
      lines.push(`# ${job.name}: not written: ${line}`);
      continue;
    }
    lines.push(...switchContext(context, { timezone: job.timezone, shell: line.shell, env: line.env }));
    const lost = lostSettings(job, options.homeDirectory);
    if (lost.length > 0) lines.push(`# ${job.name}: cron ignores its ${lost.join(', ')}`);
    const entry = `${line.schedule} ${line.field}`;
    lines.push(job.state === 'paused' ? `# paused: ${entry}` : entry);
  }
  return { text: lines.length === 0 ? '' : `${lines.join('\n')}\n`, skipped };
}

function cronLine(
  job: ExportedJob,
): { schedule: string; field: string; shell: string | null; env: Record<string, string> } | string {
  const { schedule, target } = job;
  if (schedule.kind === 'every') return 'a crontab cannot express a fixed interval (--every)';
  if (schedule.kind === 'at') return 'a crontab cannot express a one-time run (--at)';
  if (schedule.kind !== 'cron') return 'a crontab can only express cron schedules';
  if (target.kind === 'http') return `it calls ${target.method} ${target.url}, and cron runs commands only`;
  const fields = schedule.expression.split(' ');
  if (fields.length === 6 && fields[0] !== '0')
    return `it fires on seconds (${fields[0]}), and cron has minutes only`;
  const expression = fields.length === 6 ? fields.slice(1).join(' ') : schedule.expression;
  const { shell, command } = commandOf(target.argv, target.shell);
  const field = encodeCronCommand(command);
  if (field === null) return 'its command cannot be written on one crontab line';
  return { schedule: expression, field, shell, env: target.env };
}

function commandOf(
  argv: string[] | null,
  script: string | null,
): { shell: string | null; command: CronCommand } {
  if (argv !== null && argv.length === 3 && argv[1] === '-c' && SHELL_PATH.test(argv[0] ?? ''))
    return { shell: argv[0] ?? null, command: fromShellScript(argv[2] ?? '') };
  if (argv !== null)
    return { shell: null, command: { command: argv.map(shellQuote).join(' '), stdin: null } };
  return { shell: null, command: fromShellScript(script ?? '') };
}

/** The lines that set the zone, shell and variables a job needs, where they differ from what is in force. */
function switchContext(context: Context, wanted: Context): string[] {
  const lines: string[] = [];
  if (wanted.timezone !== context.timezone) lines.push(`CRON_TZ=${wanted.timezone}`);
  if (wanted.shell !== context.shell) lines.push(`SHELL=${wanted.shell ?? '/bin/sh'}`);
  const env = { ...wanted.env };
  for (const [name, value] of Object.entries(context.env)) {
    if (name in env) continue;
    // cron has no way to unset a variable; an empty value is the nearest it comes.
    if (value !== '') lines.push(`${name}=`);
    env[name] = '';
  }
  for (const [name, value] of Object.entries(wanted.env))
    if (context.env[name] !== value) lines.push(`${name}=${quoteValue(value)}`);
  context.timezone = wanted.timezone;
  context.shell = wanted.shell;
  context.env = env;
  return lines;
}

function quoteValue(value: string): string {
  // cronie trims a bare value and strips one pair of matching quotes, so quote what that would change.
  return value !== value.trim() || /^(["']).*\1$/.test(value) || value === '' ? `"${value}"` : value;
}

/** `home`: cron runs a user's jobs in their home directory, so a job that runs there loses nothing. */
function lostSettings(job: ExportedJob, home: string | undefined): string[] {
  const lost: string[] = [];
  if (job.target.kind === 'command' && job.target.cwd !== null && job.target.cwd !== home)
    lost.push(`working directory (${job.target.cwd})`);
  if (job.timeoutMs !== null) lost.push('timeout');
  if (job.retry.maxRetries > 0) lost.push('retries');
  if (job.payload !== null) lost.push('payload');
  return lost;
}

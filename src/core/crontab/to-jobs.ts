import type { JobInput } from '../job.js';
import { toShellScript } from './command.js';
import { contentHash } from './content-hash.js';
import type { CrontabEntry } from './parse.js';

/** A job to create for a crontab line. */
export interface CrontabJob {
  entry: CrontabEntry;
  name: string;
  input: JobInput;
  /** The same line imported again is the same request, so the daemon answers it without a second job. */
  idempotencyKey: string;
}

export const CRONTAB_SOURCE_LABEL = { source: 'crontab' } as const;
const MAX_DESCRIPTION = 1_000;
const MAX_SLUG = 40;

/**
 * Turns crontab lines into job inputs. A job's name is derived from what the line does (its schedule,
 * zone, command, input and variables), not from where it stands, so editing other lines or moving it
 * does not rename it, and importing the same crontab again finds the jobs it made.
 */
export function crontabJobs(
  entries: readonly CrontabEntry[],
  options: { timezone?: string } = {},
): CrontabJob[] {
  const seen = new Map<string, number>();
  return entries.map((entry) => {
    const timezone = entry.timezone ?? options.timezone;
    const identity = JSON.stringify([
      entry.schedule,
      timezone ?? null,
      entry.command,
      entry.stdin,
      Object.entries(entry.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      entry.shell,
      entry.user,
    ]);
    // Two identical lines are two jobs, as in cron: the second gets its own name.
    const occurrence = (seen.get(identity) ?? 0) + 1;
    seen.set(identity, occurrence);
    const hash = contentHash(`${identity}#${occurrence}`);
    const name = `cron-${slugOf(entry.command)}-${hash.slice(0, 8)}`;
    const script = toShellScript(entry);
    const input: JobInput = {
      name,
      description: `From crontab: ${entry.text.trim()}`.slice(0, MAX_DESCRIPTION),
      cron: entry.schedule,
      ...(timezone === undefined ? {} : { timezone }),
      ...(entry.shell === null ? { shell: script } : { argv: [entry.shell, '-c', script] }),
      ...(Object.keys(entry.env).length === 0 ? {} : { env: { ...entry.env } }),
      labels: { ...CRONTAB_SOURCE_LABEL, ...(entry.user === null ? {} : { 'crontab.user': entry.user }) },
    };
    return { entry, name, input, idempotencyKey: `crontab:${hash}` };
  });
}

/** A readable hint of the command for the job name: its first words, paths cut to their last part. */
function slugOf(command: string): string {
  const words = command
    .trim()
    .split(/\s+/)
    .filter((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word))
    .slice(0, 3)
    .map((word) => word.replace(/\/+$/, '').split('/').pop() ?? '');
  const slug = words
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/[-.]+$/g, '');
  return slug === '' ? 'job' : slug;
}

import { isSchedError } from '../errors.js';
import { assertCronExpression } from '../schedule/cron.js';
import { isValidTimezone } from '../schedule/timezone.js';
import { decodeCronCommand } from './command.js';

/** One job line of a crontab, with the settings (CRON_TZ, SHELL, variables) in force where it stands. */
export interface CrontabEntry {
  line: number;
  /** The line as written. */
  text: string;
  /** Five single-spaced fields, or a macro such as @daily. */
  schedule: string;
  /** From CRON_TZ; null means the host's zone. */
  timezone: string | null;
  command: string;
  /** What the command reads on standard input (`%` in the line); null for none. */
  stdin: string | null;
  env: Readonly<Record<string, string>>;
  /** From SHELL, when it is not /bin/sh. */
  shell: string | null;
  /** The user field of a system crontab (/etc/crontab, /etc/cron.d). */
  user: string | null;
}

/** A line that is not turned into a job (unsupported) or one that is, with a caveat (warning). */
export interface CrontabNote {
  line: number;
  text: string;
  reason: string;
}

export interface ParsedCrontab {
  entries: CrontabEntry[];
  unsupported: CrontabNote[];
  warnings: CrontabNote[];
}

export interface ParseOptions {
  /** Lines carry a user name after the five time fields, as in /etc/crontab. */
  systemFormat?: boolean;
  /** Known user names: a user-format line whose command starts with one looks like a system crontab. */
  userNames?: readonly string[];
}

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '@yearly',
  '@annually': '@yearly',
  '@monthly': '@monthly',
  '@weekly': '@weekly',
  '@daily': '@daily',
  '@midnight': '@daily',
  '@hourly': '@hourly',
};

const ENV_LINE = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;
const DEFAULT_SHELLS = new Set(['/bin/sh', 'sh', '/usr/bin/sh']);

/** What a crontab variable means to cron itself, when it is more than an environment variable. */
const CRON_SETTINGS: Readonly<Record<string, string>> = {
  MAILTO: 'sched keeps each run’s output instead of mailing it (see `sched logs RUN`)',
  MAILFROM: 'sched keeps each run’s output instead of mailing it (see `sched logs RUN`)',
  CONTENT_TYPE: 'sched does not send mail',
  CONTENT_TRANSFER_ENCODING: 'sched does not send mail',
  RANDOM_DELAY: 'sched fires on time and does not add a random delay',
  CRON_CORRECT_TIMEZONE: 'sched always fires by the job’s time zone, daylight saving included',
};

/**
 * Reads a crontab the way Vixie cron and cronie do: comments and blank lines, `NAME=value` lines that
 * apply to the lines after them (CRON_TZ sets the zone, SHELL the shell), five time fields or a macro,
 * then the command with `%` for standard input. Every line that does not become a job is reported.
 */
export function parseCrontab(text: string, options: ParseOptions = {}): ParsedCrontab {
  const result: ParsedCrontab = { entries: [], unsupported: [], warnings: [] };
  const state = {
    env: {} as Record<string, string>,
    timezone: null as string | null,
    shell: null as string | null,
  };
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    const written = raw.replace(/\r$/, '');
    const trimmed = written.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const note = (reason: string): CrontabNote => ({ line, text: written, reason });
    const assignment = ENV_LINE.exec(trimmed);
    if (assignment !== null) {
      const problem = applySetting(state, assignment[1] ?? '', unquote(assignment[2] ?? ''));
      if (problem !== undefined) result.unsupported.push(note(problem));
      return;
    }
    const parsed = parseJobLine(trimmed, options.systemFormat === true);
    if (typeof parsed === 'string') return result.unsupported.push(note(parsed));
    if (state.timezone !== null && !isValidTimezone(state.timezone))
      return result.unsupported.push(note(`CRON_TZ=${state.timezone} is not a time zone sched knows`));
    const { command, stdin } = decodeCronCommand(parsed.command);
    if (command.trim() === '') return result.unsupported.push(note('the command is empty'));
    result.entries.push({
      line,
      text: written,
      schedule: parsed.schedule,
      timezone: state.timezone,
      command,
      stdin,
      env: { ...state.env },
      shell: state.shell,
      user: parsed.user,
    });
    const warning = lookalikeWarning(command, options);
    if (warning !== undefined) result.warnings.push(note(warning));
  });
  return result;
}

/** A line cron reads one way that was probably meant another: a user field, or a sixth time field. */
function lookalikeWarning(command: string, options: ParseOptions): string | undefined {
  const [firstWord = '', secondWord] = command.trim().split(/\s+/);
  if (/^[0-9*/,-]+$/.test(firstWord))
    return `the command starts with "${firstWord}", which looks like a sixth time field; a crontab has five, so cron would run "${firstWord}" as a program (for seconds, add the job with sched add --cron)`;
  // `root /usr/sbin/logrotate …`, not `mail -s …` (Debian has a user called mail).
  const looksLikeUserField = secondWord !== undefined && !secondWord.startsWith('-');
  if (!options.systemFormat && looksLikeUserField && (options.userNames ?? []).includes(firstWord))
    return `the command starts with "${firstWord}", a user name: if this is a system crontab (with a user field), import it with --system-format`;
  return undefined;
}

function applySetting(
  state: { env: Record<string, string>; timezone: string | null; shell: string | null },
  name: string,
  value: string,
): string | undefined {
  if (name === 'CRON_TZ') {
    state.timezone = value === '' ? null : value;
    return undefined;
  }
  if (name === 'SHELL') {
    state.shell = DEFAULT_SHELLS.has(value) || value === '' ? null : value;
    return undefined;
  }
  const meaning = CRON_SETTINGS[name];
  if (meaning !== undefined) return `${name} is ignored: ${meaning}`;
  state.env[name] = value;
  return undefined;
}

/** cronie takes a value in matching quotes as the text between them. */
function unquote(value: string): string {
  const trimmed = value.trim();
  const quote = trimmed[0];
  if (trimmed.length >= 2 && (quote === '"' || quote === "'") && trimmed.endsWith(quote))
    return trimmed.slice(1, -1);
  return trimmed;
}

/** The schedule, user and command of a job line, or why it is not one. */
function parseJobLine(
  line: string,
  systemFormat: boolean,
): { schedule: string; user: string | null; command: string } | string {
  const words = line.split(/\s+/);
  const timeFields = line.startsWith('@') ? 1 : 5;
  const needed = timeFields + (systemFormat ? 1 : 0) + 1;
  if (words.length < needed) {
    if (line.startsWith('@')) return `expected a command after ${words[0]}`;
    return `expected five time fields${systemFormat ? ', a user' : ''} and a command`;
  }
  const fields = words.slice(0, timeFields);
  const user = systemFormat ? (words[timeFields] ?? null) : null;
  const command = skipWords(line, timeFields + (systemFormat ? 1 : 0));
  if (timeFields === 1) {
    const macro = (fields[0] ?? '').toLowerCase();
    if (macro === '@reboot')
      return '@reboot runs at boot, and sched fires by the clock: start the command from a systemd unit instead';
    const schedule = MACROS[macro];
    return schedule === undefined ? `${fields[0]} is not a cron macro` : { schedule, user, command };
  }
  const schedule = fields.join(' ');
  try {
    assertCronExpression(schedule);
  } catch (error) {
    if (!isSchedError(error)) throw error;
    return error.message.replace(/\.$/, '');
  }
  return { schedule, user, command };
}

/** The rest of the line after `count` whitespace-separated words, spacing inside it kept. */
function skipWords(line: string, count: number): string {
  const pattern = new RegExp(`^(?:\\S+\\s+){${count}}`);
  return line.replace(pattern, '');
}

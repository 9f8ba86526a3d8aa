/**
 * A crontab command field and what it means. cron cuts the field at the first unescaped `%`: before it is
 * the command for `sh -c` (with `\%` meaning `%`), after it is text for the command's standard input, in
 * which `%` means a newline; cron ends that text with a newline when it lacks one (Vixie cron's
 * do_command.c). Here both halves are kept decoded: `stdin` is exactly the bytes the command reads.
 */
export interface CronCommand {
  command: string;
  /** What the command reads on standard input, newline-terminated; null when the field has no `%`. */
  stdin: string | null;
}

export function decodeCronCommand(field: string): CronCommand {
  let command = '';
  for (let index = 0; index < field.length; index++) {
    const char = field[index];
    const next = field[index + 1];
    // A backslash protects the next character; only before `%` does cron drop it.
    if (char === '\\' && next !== undefined) {
      command += next === '%' ? '%' : `\\${next}`;
      index++;
    } else if (char === '%') {
      return { command, stdin: decodeStdin(field.slice(index + 1)) };
    } else {
      command += char;
    }
  }
  return { command, stdin: null };
}

function decodeStdin(text: string): string | null {
  let data = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '\\' && text[index + 1] === '%') {
      data += '%';
      index++;
    } else data += char === '%' ? '\n' : char;
  }
  // An empty input gets no newline from cron, and reads like no input at all.
  if (data === '') return null;
  return data.endsWith('\n') ? data : `${data}\n`;
}

/**
 * The crontab field for a command: the inverse of decodeCronCommand, in its shortest spelling, or null
 * when cron has no spelling for it (a backslash right before a `%`, a newline in the command).
 */
export function encodeCronCommand(value: CronCommand): string | null {
  const head = value.command.replaceAll('%', '\\%');
  const field = value.stdin === null ? head : `${head}%${encodeStdin(value.stdin)}`;
  const back = decodeCronCommand(field);
  const same = !field.includes('\n') && back.command === value.command && back.stdin === value.stdin;
  return same ? field : null;
}

function encodeStdin(stdin: string): string {
  // cron adds the final newline itself, unless the text already ends in one.
  const body = stdin.slice(0, -1);
  const text = body === '' || body.endsWith('\n') ? stdin : body;
  return text.replaceAll('%', '\\%').replaceAll('\n', '%');
}

const STDIN_DELIMITER = 'SCHED_CRON_STDIN';
const WRAPPED = /^\{\n([^\n]*)\n\} <<'(SCHED_CRON_STDIN(?:_\d+)?)'\n([\s\S]*\n)\2$/;

/**
 * The shell script that does what cron does with a command and its input: the command as a group,
 * fed the input by a quoted here-document (so nothing in it is expanded).
 */
export function toShellScript({ command, stdin }: CronCommand): string {
  if (stdin === null) return command;
  const lines = new Set(stdin.split('\n'));
  let delimiter = STDIN_DELIMITER;
  for (let n = 1; lines.has(delimiter); n++) delimiter = `${STDIN_DELIMITER}_${n}`;
  return `{\n${command}\n} <<'${delimiter}'\n${stdin}${delimiter}`;
}

/** Reads back what toShellScript wrote; any other script is a command without input. */
export function fromShellScript(script: string): CronCommand {
  const match = WRAPPED.exec(script);
  if (match === null) return { command: script, stdin: null };
  return { command: match[1] ?? '', stdin: match[3] ?? '' };
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one word so that a POSIX shell reads it back unchanged. */
export function shellQuote(word: string): string {
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

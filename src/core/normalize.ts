import { formatDuration, parseDuration } from './duration.js';
import { SchedError, type ErrorCode } from './errors.js';
import {
  JOB_NAME_PATTERN,
  MAX_PAYLOAD_BYTES,
  jobDefinitionSchema,
  type JobDefinition,
  type JobInput,
  type JobPatch,
  type Schedule,
} from './job.js';
import { parseAt } from './schedule/at.js';
import { assertCronExpression } from './schedule/cron.js';
import { parseEvery } from './schedule/every.js';
import { assertTimezone } from './schedule/timezone.js';

export interface NormalizeContext {
  /** The instant the request is handled: `at` must lie after it and a new `every` is anchored to it. */
  now: number;
  /** The zone for jobs that name none, usually the daemon host's. */
  defaultTimezone: string;
}

const MAX_DESCRIPTION_LENGTH = 1_000;
// Node timers overflow above 2^31-1 ms (about 24.8 days) and would fire at once, killing the run immediately.
const MAX_TIMEOUT_MS = 24 * 86_400_000;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LABEL_KEY_PATTERN = /^[A-Za-z0-9_./-]+$/;
const SCHEDULE_HINT = 'Give exactly one of --cron, --at or --every.';
const COMMAND_HINT =
  'Give the program and its arguments after --, such as -- ./backup.sh --full, or a script with --shell.';

function fail(
  code: ErrorCode,
  message: string,
  hint: string,
  details: Record<string, unknown> = {},
): SchedError {
  return new SchedError(code, message, { hint, details });
}

/** Turns what a client sent into a checked job definition; every problem is a SchedError with a hint. */
export function normalizeJobInput(input: JobInput, ctx: NormalizeContext): JobDefinition {
  const name = checkName(input.name);
  const timezone = checkTimezone(input.timezone ?? ctx.defaultTimezone);
  const schedule = buildSchedule(input, timezone, ctx, null);
  if (schedule === undefined)
    throw fail('VALIDATION_FAILED', `Job "${name}" has no schedule.`, SCHEDULE_HINT);
  return finish({
    name,
    description: input.description === undefined ? null : checkDescription(input.description),
    schedule,
    timezone,
    target: {
      kind: 'command',
      ...buildCommand(input.argv, input.shell),
      cwd: input.cwd === undefined ? null : checkCwd(input.cwd),
      env: checkEnv(input.env ?? {}),
    },
    payload: input.payload === undefined ? null : parsePayload(input.payload),
    timeoutMs: input.timeout === undefined ? null : parseTimeout(input.timeout),
    labels: checkLabels(input.labels ?? {}),
  });
}

/**
 * Applies a partial change: absent fields keep their value; a new schedule or command replaces the old one
 * whole; env and labels are replaced wholesale; `clear` resets fields to null. New values get every check
 * that normalizeJobInput makes.
 */
export function applyJobPatch(current: JobDefinition, patch: JobPatch, ctx: NormalizeContext): JobDefinition {
  const cleared = new Set(patch.clear ?? []);
  for (const field of cleared) {
    if (patch[field] !== undefined) {
      throw fail(
        'VALIDATION_FAILED',
        `The ${field} cannot be both set and cleared.`,
        `Either give a new ${field} or clear it.`,
        { field },
      );
    }
  }
  const timezone = patch.timezone === undefined ? current.timezone : checkTimezone(patch.timezone);
  const commandGiven = patch.argv !== undefined || patch.shell !== undefined;
  return finish({
    name: patch.name === undefined ? current.name : checkName(patch.name),
    description: cleared.has('description')
      ? null
      : patch.description === undefined
        ? current.description
        : checkDescription(patch.description),
    schedule: buildSchedule(patch, timezone, ctx, current.schedule) ?? current.schedule,
    timezone,
    target: {
      kind: 'command',
      ...(commandGiven
        ? buildCommand(patch.argv, patch.shell)
        : { argv: current.target.argv, shell: current.target.shell }),
      cwd: cleared.has('cwd') ? null : patch.cwd === undefined ? current.target.cwd : checkCwd(patch.cwd),
      env: patch.env === undefined ? current.target.env : checkEnv(patch.env),
    },
    payload: cleared.has('payload')
      ? null
      : patch.payload === undefined
        ? current.payload
        : parsePayload(patch.payload),
    timeoutMs: cleared.has('timeout')
      ? null
      : patch.timeout === undefined
        ? current.timeoutMs
        : parseTimeout(patch.timeout),
    labels: patch.labels === undefined ? current.labels : checkLabels(patch.labels),
  });
}

function finish(definition: JobDefinition): JobDefinition {
  const result = jobDefinitionSchema.safeParse(definition);
  // Every user mistake is caught above; reaching this is a bug in normalization, not bad input.
  if (!result.success)
    throw new Error(`Normalization produced an invalid job definition: ${result.error.message}`);
  return result.data;
}

function checkName(name: string): string {
  if (JOB_NAME_PATTERN.test(name)) return name;
  throw fail(
    'VALIDATION_FAILED',
    `Invalid job name "${name}".`,
    'Use 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit.',
    { name },
  );
}

function checkTimezone(timezone: string): string {
  assertTimezone(timezone);
  return timezone;
}

/** Returns undefined when no schedule field is given, so a patch keeps the current schedule. */
function buildSchedule(
  texts: Pick<JobInput, 'cron' | 'at' | 'every'>,
  timezone: string,
  ctx: NormalizeContext,
  current: Schedule | null,
): Schedule | undefined {
  const given = (['cron', 'at', 'every'] as const).filter((kind) => texts[kind] !== undefined);
  if (given.length > 1) {
    throw fail(
      'VALIDATION_FAILED',
      `A job has one schedule, but ${given.join(' and ')} were given.`,
      SCHEDULE_HINT,
      { given },
    );
  }
  if (texts.cron !== undefined) {
    assertCronExpression(texts.cron);
    return { kind: 'cron', expression: texts.cron.trim().replace(/\s+/g, ' ') };
  }
  if (texts.at !== undefined) {
    const at = parseAt(texts.at, timezone);
    if (at <= ctx.now) {
      throw fail(
        'AT_IN_PAST',
        `The time "${texts.at}" (${new Date(at).toISOString()}) is not in the future; it is now ${new Date(ctx.now).toISOString()}.`,
        'Give a later time, or use --cron or --every for a repeating job.',
        { at, now: ctx.now },
      );
    }
    return { kind: 'at', at };
  }
  if (texts.every !== undefined) {
    const intervalMs = parseEvery(texts.every);
    const keepAnchor = current?.kind === 'every' && current.intervalMs === intervalMs;
    return { kind: 'every', intervalMs, anchorMs: keepAnchor ? current.anchorMs : ctx.now };
  }
  return undefined;
}

function buildCommand(
  argv: string[] | undefined,
  shell: string | undefined,
): { argv: string[] | null; shell: string | null } {
  const hasArgv = argv !== undefined && argv.length > 0;
  const hasShell = shell !== undefined && shell.trim() !== '';
  if (hasArgv && hasShell)
    throw fail('VALIDATION_FAILED', 'A job runs either an argv or a shell script, not both.', COMMAND_HINT);
  if (hasShell) return { argv: null, shell };
  if (!hasArgv) throw fail('EMPTY_COMMAND', 'The job has no command to run.', COMMAND_HINT);
  if ((argv[0] ?? '').trim() === '')
    throw fail('EMPTY_COMMAND', "The command's program (its first word) is empty.", COMMAND_HINT, { argv });
  return { argv, shell: null };
}

function checkCwd(cwd: string): string {
  if (cwd.trim() !== '') return cwd;
  throw fail(
    'VALIDATION_FAILED',
    'The working directory is empty.',
    'Give a directory path, or leave it out to use the default.',
  );
}

function checkEnv(env: Record<string, string>): Record<string, string> {
  for (const name of Object.keys(env)) {
    if (!ENV_NAME_PATTERN.test(name)) {
      throw fail(
        'VALIDATION_FAILED',
        `Invalid environment variable name "${name}".`,
        'Names use letters, digits and _, and do not start with a digit.',
        { name },
      );
    }
  }
  return env;
}

function checkLabels(labels: Record<string, string>): Record<string, string> {
  for (const [key, value] of Object.entries(labels)) {
    if (!LABEL_KEY_PATTERN.test(key)) {
      throw fail(
        'VALIDATION_FAILED',
        `Invalid label key "${key}".`,
        'Label keys are non-empty and use letters, digits, ".", "_", "/" and "-".',
        { key },
      );
    }
    if (value === '')
      throw fail(
        'VALIDATION_FAILED',
        `Label "${key}" has an empty value.`,
        'Give every label a value, such as team=infra.',
        { key },
      );
  }
  return labels;
}

function checkDescription(description: string): string {
  if (description.length <= MAX_DESCRIPTION_LENGTH) return description;
  throw fail(
    'VALIDATION_FAILED',
    `The description is ${description.length} characters long; the limit is ${MAX_DESCRIPTION_LENGTH}.`,
    'Shorten the description.',
    { length: description.length },
  );
}

function parsePayload(text: string): JobDefinition['payload'] {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_PAYLOAD_BYTES) {
    throw fail(
      'PAYLOAD_TOO_LARGE',
      `The payload is ${bytes} bytes; the limit is ${MAX_PAYLOAD_BYTES} bytes (1 MiB).`,
      'Keep large data in a file and pass its path in the payload.',
      { bytes, limit: MAX_PAYLOAD_BYTES },
    );
  }
  try {
    return JSON.parse(text) as JobDefinition['payload'];
  } catch {
    const offset = jsonErrorOffset(text);
    const before = text.slice(0, offset);
    const where =
      offset >= text.length
        ? 'it ends too early'
        : `unexpected ${JSON.stringify(text.slice(offset, offset + 10))} at line ${before.split('\n').length}, column ${offset - before.lastIndexOf('\n')}`;
    throw fail(
      'VALIDATION_FAILED',
      `The payload is not valid JSON: ${where}.`,
      'Pass JSON text, such as \'{"table": "users"}\', quoted for your shell.',
      { offset },
    );
  }
}

// JSON strings may not hold raw control characters, so the token must refuse them.
const JSON_TOKEN =
  // eslint-disable-next-line no-control-regex
  /\s*(?:([{}[\]:,])|("(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null))/y;

/**
 * Where JSON.parse gave up: the offset of the first character that cannot continue valid JSON, or the text's
 * length when it ends too early. Node 20's own messages quote the whole text instead of giving a position.
 * Iterative, so a deeply nested payload cannot overflow the stack.
 */
function jsonErrorOffset(text: string): number {
  const open: string[] = [];
  let expecting: 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'commaOrClose' | 'nothing' =
    'value';
  for (let offset = 0; ; offset = JSON_TOKEN.lastIndex) {
    JSON_TOKEN.lastIndex = offset;
    const match = JSON_TOKEN.exec(text);
    if (match === null) return offset + (/^\s*/.exec(text.slice(offset))?.[0].length ?? 0);
    const [whole, punctuation, scalar = ''] = match;
    const start = offset + whole.length - (punctuation ?? scalar).length;
    const closes = open.at(-1) === '{' ? '}' : ']';
    if (
      (expecting === 'valueOrClose' && punctuation === ']') ||
      (expecting === 'keyOrClose' && punctuation === '}') ||
      (expecting === 'commaOrClose' && punctuation === closes)
    ) {
      open.pop();
    } else if (expecting === 'value' || expecting === 'valueOrClose') {
      if (punctuation === '{' || punctuation === '[') {
        open.push(punctuation);
        expecting = punctuation === '{' ? 'keyOrClose' : 'valueOrClose';
        continue;
      }
      if (punctuation !== undefined) return start;
    } else if (expecting === 'key' || expecting === 'keyOrClose') {
      if (!scalar.startsWith('"')) return start;
      expecting = 'colon';
      continue;
    } else if (expecting === 'colon' && punctuation === ':') {
      expecting = 'value';
      continue;
    } else if (expecting === 'commaOrClose' && punctuation === ',') {
      expecting = closes === '}' ? 'key' : 'value';
      continue;
    } else {
      return start;
    }
    expecting = open.length > 0 ? 'commaOrClose' : 'nothing';
  }
}

function parseTimeout(text: string): number {
  const timeoutMs = parseDuration(text, 'timeout');
  if (timeoutMs <= 0)
    throw fail(
      'VALIDATION_FAILED',
      `Timeout "${text}" must be longer than zero.`,
      'Give a duration such as 30s or 10m, or clear the timeout.',
      { value: text },
    );
  if (timeoutMs > MAX_TIMEOUT_MS) {
    throw fail(
      'VALIDATION_FAILED',
      `Timeout "${text}" is too long; the longest is ${formatDuration(MAX_TIMEOUT_MS)}.`,
      'Give a shorter duration, or clear the timeout to let runs take as long as they need.',
      { value: text },
    );
  }
  return timeoutMs;
}

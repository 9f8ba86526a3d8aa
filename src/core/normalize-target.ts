import { inputError } from './input-error.js';
import {
  DEFAULT_BREAKER_SETTINGS,
  type CommandTarget,
  type HttpTarget,
  type JobDefinition,
  type JobPatch,
  type Target,
} from './job.js';
import {
  checkBodyAllowed,
  checkBreakerFailures,
  checkMethod,
  checkUrl,
  defaultMethod,
  parseBreakerCooldown,
  parseExpect,
  parseHeaders,
} from './normalize-http.js';

export type TargetFields = Pick<
  JobPatch,
  | 'argv'
  | 'shell'
  | 'cwd'
  | 'env'
  | 'http'
  | 'method'
  | 'headers'
  | 'expect'
  | 'breakerFailures'
  | 'breakerCooldown'
>;

const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const COMMAND_HINT =
  'Give the program and its arguments after --, such as -- ./backup.sh --full, or a script with --shell.';
const HTTP_ONLY_FIELDS = [
  ['method', '--method'],
  ['headers', '--header'],
  ['expect', '--expect'],
  ['breakerFailures', '--breaker-failures'],
  ['breakerCooldown', '--breaker-cooldown'],
] as const satisfies readonly (readonly [keyof TargetFields, string])[];
const COMMAND_ONLY_FIELDS = [
  ['cwd', '--cwd'],
  ['env', '--env'],
] as const satisfies readonly (readonly [keyof TargetFields, string])[];

/**
 * Builds the target of a job from the fields given, on top of the current target (null for a new job).
 * A URL makes it an HTTP job and a command makes it a command job; otherwise it keeps its kind, and the
 * fields given replace the current ones one by one. `payload` is the job's payload after the change: an
 * HTTP job sends it as the body, which decides the default method.
 */
export function buildTarget(
  current: Target | null,
  fields: TargetFields,
  payload: JobDefinition['payload'],
  clearCwd = false,
): Target {
  const commandGiven = fields.argv !== undefined || fields.shell !== undefined;
  if (fields.http !== undefined && commandGiven) {
    throw inputError(
      'VALIDATION_FAILED',
      'A job either calls a URL or runs a command, not both.',
      'Give --http URL alone to call a URL, or a command after -- (or --shell) without --http.',
    );
  }
  if (fields.http !== undefined)
    return buildHttpTarget(current?.kind === 'http' ? current : null, checkUrl(fields.http), fields, payload);
  if (!commandGiven && current?.kind === 'http')
    return buildHttpTarget(current, current.url, fields, payload);
  refuseFieldsOf(
    fields,
    HTTP_ONLY_FIELDS,
    'HTTP jobs',
    'Give --http URL to make the job call a URL, or drop the option.',
  );
  return buildCommandTarget(current?.kind === 'command' ? current : null, fields, commandGiven, clearCwd);
}

function refuseFieldsOf(
  fields: TargetFields,
  only: readonly (readonly [keyof TargetFields, string])[],
  kind: string,
  hint: string,
): void {
  // An empty list or record says nothing, so it does not count as given.
  const given = only.filter(([field]) => {
    const value = fields[field];
    if (value === undefined) return false;
    if (Array.isArray(value)) return value.length > 0;
    return typeof value !== 'object' || Object.keys(value).length > 0;
  });
  if (given.length === 0) return;
  const flags = given.map(([, flag]) => flag);
  throw inputError(
    'VALIDATION_FAILED',
    `${flags.join(' and ')} ${flags.length === 1 ? 'applies' : 'apply'} to ${kind} only.`,
    hint,
    { fields: given.map(([field]) => field) },
  );
}

function buildCommandTarget(
  current: CommandTarget | null,
  fields: TargetFields,
  commandGiven: boolean,
  clearCwd: boolean,
): CommandTarget {
  const command =
    commandGiven || current === null
      ? buildCommand(fields.argv, fields.shell)
      : { argv: current.argv, shell: current.shell };
  return {
    kind: 'command',
    ...command,
    cwd: clearCwd ? null : fields.cwd !== undefined ? checkCwd(fields.cwd) : (current?.cwd ?? null),
    env: fields.env !== undefined ? checkEnv(fields.env) : (current?.env ?? {}),
  };
}

function buildHttpTarget(
  current: HttpTarget | null,
  url: string,
  fields: TargetFields,
  payload: JobDefinition['payload'],
): HttpTarget {
  refuseFieldsOf(
    fields,
    COMMAND_ONLY_FIELDS,
    'command jobs',
    'Drop it: an HTTP job has no working directory or environment.',
  );
  const method =
    fields.method !== undefined ? checkMethod(fields.method) : (current?.method ?? defaultMethod(payload));
  checkBodyAllowed(method, payload);
  return {
    kind: 'http',
    method,
    url,
    headers: fields.headers !== undefined ? parseHeaders(fields.headers) : (current?.headers ?? {}),
    expect:
      fields.expect !== undefined
        ? parseExpect(fields.expect)
        : (current?.expect ?? { kind: 'class', hundreds: 2 }),
    breaker: {
      failureThreshold:
        fields.breakerFailures !== undefined
          ? checkBreakerFailures(fields.breakerFailures)
          : (current?.breaker.failureThreshold ?? DEFAULT_BREAKER_SETTINGS.failureThreshold),
      cooldownMs:
        fields.breakerCooldown !== undefined
          ? parseBreakerCooldown(fields.breakerCooldown)
          : (current?.breaker.cooldownMs ?? DEFAULT_BREAKER_SETTINGS.cooldownMs),
    },
  };
}

function buildCommand(
  argv: string[] | undefined,
  shell: string | undefined,
): { argv: string[] | null; shell: string | null } {
  const hasArgv = argv !== undefined && argv.length > 0;
  const hasShell = shell !== undefined && shell.trim() !== '';
  if (hasArgv && hasShell)
    throw inputError(
      'VALIDATION_FAILED',
      'A job runs either an argv or a shell script, not both.',
      COMMAND_HINT,
    );
  if (hasShell) return { argv: null, shell };
  if (!hasArgv) throw inputError('EMPTY_COMMAND', 'The job has no command to run.', COMMAND_HINT);
  if ((argv[0] ?? '').trim() === '')
    throw inputError('EMPTY_COMMAND', "The command's program (its first word) is empty.", COMMAND_HINT, {
      argv,
    });
  return { argv, shell: null };
}

function checkCwd(cwd: string): string {
  if (cwd.trim() !== '') return cwd;
  throw inputError(
    'VALIDATION_FAILED',
    'The working directory is empty.',
    'Give a directory path, or leave it out to use the default.',
  );
}

function checkEnv(env: Record<string, string>): Record<string, string> {
  for (const name of Object.keys(env)) {
    if (!ENV_NAME_PATTERN.test(name)) {
      throw inputError(
        'VALIDATION_FAILED',
        `Invalid environment variable name "${name}".`,
        'Names use letters, digits and _, and do not start with a digit.',
        { name },
      );
    }
  }
  return env;
}

import { assertNoMaskedSecrets } from './secrets/mask.js';
import { looksLikeId } from './id-format.js';
import { inputError } from './input-error.js';
import { buildDependencies, buildPlacement, buildTimePolicy } from './normalize-policy.js';
import {
  DEFAULT_RETRY_POLICY,
  DEFAULT_TIME_POLICY,
  DEFAULT_PLACEMENT,
  JOB_NAME_PATTERN,
  jobDefinitionSchema,
  type JobDefinition,
  type JobInput,
  type JobPatch,
  type Schedule,
} from './job.js';
import { parseBoundedDuration } from './normalize-duration.js';
import { parsePayload } from './normalize-payload.js';
import { buildRetryPolicy } from './normalize-retry.js';
import { buildTarget } from './normalize-target.js';
import { DEFAULT_ALERTS } from './notify/alerts.js';
import { buildAlerts } from './notify/normalize-alerts.js';
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
const LABEL_KEY_PATTERN = /^[A-Za-z0-9_./-]+$/;
const SCHEDULE_HINT = 'Give exactly one of --cron, --at or --every.';

/** Turns what a client sent into a checked job definition; every problem is a SchedError with a hint. */
export function normalizeJobInput(input: JobInput, ctx: NormalizeContext): JobDefinition {
  const name = checkName(input.name);
  const timezone = checkTimezone(input.timezone ?? ctx.defaultTimezone);
  const dependencies = buildDependencies({ after: [], afterAll: [] }, input, name);
  const hasDependencies = dependencies.after.length > 0 || dependencies.afterAll.length > 0;
  const schedule =
    buildSchedule(input, timezone, ctx, null) ?? (hasDependencies ? ({ kind: 'none' } as const) : undefined);
  if (schedule === undefined)
    throw inputError(
      'VALIDATION_FAILED',
      `Job "${name}" has no schedule.`,
      'Give one of --cron, --at or --every, or --after JOB to run it when another job ends.',
    );
  const payload = input.payload === undefined ? null : parsePayload(input.payload);
  return finish({
    name,
    description: input.description === undefined ? null : checkDescription(input.description),
    schedule,
    timezone,
    target: buildTarget(null, input, payload),
    payload,
    timeoutMs: input.timeout === undefined ? null : parseTimeout(input.timeout),
    labels: checkLabels(input.labels ?? {}),
    retry: buildRetryPolicy(DEFAULT_RETRY_POLICY, input, 'default'),
    policy: buildTimePolicy(DEFAULT_TIME_POLICY, input),
    ...dependencies,
    placement: buildPlacement(DEFAULT_PLACEMENT, input, checkLabels),
    alerts: buildAlerts(DEFAULT_ALERTS, input, new Set()),
  });
}

/**
 * Applies a partial change: absent fields keep their value; a new schedule or command replaces the old one
 * whole (a URL turns the job into an HTTP job, a command turns it back); the other target and retry fields
 * change one by one; env, headers and labels are replaced wholesale; `clear` resets fields to null. New
 * values get every check that normalizeJobInput makes.
 */
export function applyJobPatch(current: JobDefinition, patch: JobPatch, ctx: NormalizeContext): JobDefinition {
  const cleared = new Set(patch.clear ?? []);
  for (const field of cleared) {
    if (patch[field] !== undefined) {
      throw inputError(
        'VALIDATION_FAILED',
        `The ${field} cannot be both set and cleared.`,
        `Either give a new ${field} or clear it.`,
        { field },
      );
    }
  }
  const timezone = patch.timezone === undefined ? current.timezone : checkTimezone(patch.timezone);
  const payload = cleared.has('payload')
    ? null
    : patch.payload === undefined
      ? current.payload
      : parsePayload(patch.payload);
  return finish({
    name: patch.name === undefined ? current.name : checkName(patch.name),
    description: cleared.has('description')
      ? null
      : patch.description === undefined
        ? current.description
        : checkDescription(patch.description),
    schedule: buildSchedule(patch, timezone, ctx, current.schedule) ?? current.schedule,
    timezone,
    // Clearing the cwd of a job that has none (an HTTP job) asks for what already is, so it is not refused.
    target: buildTarget(current.target, patch, payload, cleared.has('cwd')),
    payload,
    timeoutMs: cleared.has('timeout')
      ? null
      : patch.timeout === undefined
        ? current.timeoutMs
        : parseTimeout(patch.timeout),
    labels: patch.labels === undefined ? current.labels : checkLabels(patch.labels),
    retry: buildRetryPolicy(current.retry, patch, 'stored', cleared),
    policy: buildTimePolicy(current.policy, patch),
    placement: buildPlacement(current.placement, patch, checkLabels),
    alerts: buildAlerts(current.alerts ?? DEFAULT_ALERTS, patch, cleared),
    ...buildDependencies(current, patch, patch.name ?? current.name),
  });
}

function finish(definition: JobDefinition): JobDefinition {
  if (
    definition.schedule.kind === 'none' &&
    definition.after.length === 0 &&
    definition.afterAll.length === 0
  ) {
    throw inputError(
      'VALIDATION_FAILED',
      `Job "${definition.name}" would have neither a schedule nor jobs to run after.`,
      `${SCHEDULE_HINT} Or give --after JOB.`,
    );
  }
  assertNoMaskedSecrets(definition);
  const result = jobDefinitionSchema.safeParse(definition);
  // Every user mistake is caught above; reaching this is a bug in normalization, not bad input.
  if (!result.success)
    throw new Error(`Normalization produced an invalid job definition: ${result.error.message}`);
  return result.data;
}

function checkName(name: string): string {
  // Any UUID, not only an existing job's id: a job made later could get it, and `sched show NAME` would
  // then mean two jobs.
  if (looksLikeId(name)) {
    throw inputError(
      'VALIDATION_FAILED',
      `Invalid job name "${name}": it has the shape of a job id.`,
      'Names and ids are looked up alike, so a name may not be a UUID; give a name that says what the job does.',
      { name },
    );
  }
  if (JOB_NAME_PATTERN.test(name)) return name;
  throw inputError(
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
  texts: Pick<JobInput, 'cron' | 'at' | 'every' | 'everyAnchor'>,
  timezone: string,
  ctx: NormalizeContext,
  current: Schedule | null,
): Schedule | undefined {
  const given = (['cron', 'at', 'every'] as const).filter((kind) => texts[kind] !== undefined);
  if (given.length > 1) {
    throw inputError(
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
      throw inputError(
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
    const anchorMs =
      texts.everyAnchor !== undefined
        ? parseAnchor(texts.everyAnchor)
        : keepAnchor
          ? current.anchorMs
          : ctx.now;
    return { kind: 'every', intervalMs, anchorMs };
  }
  return undefined;
}

function parseAnchor(text: string): number {
  const anchorMs = /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(anchorMs)) {
    throw inputError(
      'VALIDATION_FAILED',
      `Invalid interval anchor "${text}".`,
      'Give the anchor as an ISO instant with an offset, such as 2026-01-01T00:00:00Z.',
      {
        value: text,
      },
    );
  }
  return anchorMs;
}

function checkLabels(labels: Record<string, string>): Record<string, string> {
  for (const [key, value] of Object.entries(labels)) {
    if (!LABEL_KEY_PATTERN.test(key)) {
      throw inputError(
        'VALIDATION_FAILED',
        `Invalid label key "${key}".`,
        'Label keys are non-empty and use letters, digits, ".", "_", "/" and "-".',
        { key },
      );
    }
    if (value === '')
      throw inputError(
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
  throw inputError(
    'VALIDATION_FAILED',
    `The description is ${description.length} characters long; the limit is ${MAX_DESCRIPTION_LENGTH}.`,
    'Shorten the description.',
    { length: description.length },
  );
}

function parseTimeout(text: string): number {
  return parseBoundedDuration(text, {
    label: 'Timeout',
    allowZero: false,
    hint: 'Give a duration such as 30s or 10m, or clear the timeout to let runs take as long as they need.',
  });
}

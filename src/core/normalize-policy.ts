import { inputError } from './input-error.js';
import type { JobDependency, JobPatch, Placement, TimePolicy } from './job.js';
import { parseBoundedDuration } from './normalize-duration.js';
import { parseAfter } from './dependencies/after.js';
import { parseDstGap, parseDstRepeat } from './policy/dst.js';
import { parseMisfire } from './policy/misfire.js';
import { parseConcurrency } from './policy/overlap.js';

export type TimePolicyFields = Pick<
  JobPatch,
  | 'concurrency'
  | 'misfire'
  | 'catchupWindow'
  | 'skipIfNextWithin'
  | 'dstGap'
  | 'dstRepeat'
  | 'spread'
  | 'fireJitter'
  | 'clear'
>;

/** Applies the time-policy fields given to a policy, one by one; `clear` resets the optional ones. */
export function buildTimePolicy(current: TimePolicy, fields: TimePolicyFields): TimePolicy {
  const cleared = new Set(fields.clear ?? []);
  return {
    concurrency:
      fields.concurrency === undefined ? current.concurrency : parseConcurrency(fields.concurrency),
    misfire: {
      policy: fields.misfire === undefined ? current.misfire.policy : parseMisfire(fields.misfire),
      catchupWindowMs:
        fields.catchupWindow === undefined
          ? current.misfire.catchupWindowMs
          : parseBoundedDuration(fields.catchupWindow, {
              label: 'Catch-up window',
              allowZero: true,
              hint: 'Give --catchup-window as how old a missed instant may be and still run, such as 1h.',
            }),
      skipIfNextWithinMs: cleared.has('skipIfNextWithin')
        ? null
        : fields.skipIfNextWithin === undefined
          ? current.misfire.skipIfNextWithinMs
          : parseBoundedDuration(fields.skipIfNextWithin, {
              label: 'Skip-if-next-within',
              allowZero: true,
              hint: 'Give --skip-if-next-within as a duration, such as 10m: no catch-up run when the next regular one is that close.',
            }),
    },
    dst: {
      gap: fields.dstGap === undefined ? current.dst.gap : parseDstGap(fields.dstGap),
      repeat: fields.dstRepeat === undefined ? current.dst.repeat : parseDstRepeat(fields.dstRepeat),
    },
    spreadMs: cleared.has('spread')
      ? null
      : fields.spread === undefined
        ? current.spreadMs
        : parseBoundedDuration(fields.spread, {
            label: 'Spread',
            allowZero: false,
            hint: 'Give --spread as the width of the window each instant is spread over, such as 5m.',
          }),
    jitterMs: cleared.has('fireJitter')
      ? null
      : fields.fireJitter === undefined
        ? current.jitterMs
        : parseBoundedDuration(fields.fireJitter, {
            label: 'Jitter',
            allowZero: false,
            hint: 'Give --jitter as the longest random delay added to each instant, such as 30s.',
          }),
  };
}

/** Parses `--after` and `--after-all` as typed; names are resolved to ids (and cycles refused) by the daemon. */
export function buildDependencies(
  current: { after: JobDependency[]; afterAll: string[] },
  fields: Pick<JobPatch, 'after' | 'afterAll' | 'clear' | 'name'>,
  selfName: string,
): { after: JobDependency[]; afterAll: string[] } {
  const cleared = new Set(fields.clear ?? []);
  const after = cleared.has('after')
    ? []
    : fields.after === undefined
      ? current.after
      : fields.after.map(parseAfter);
  const afterAll = cleared.has('afterAll')
    ? []
    : fields.afterAll === undefined
      ? current.afterAll
      : fields.afterAll.map((text) => parseAfter(text).job);
  for (const upstream of [...after.map((dependency) => dependency.job), ...afterAll]) {
    if (upstream === selfName) {
      throw inputError(
        'VALIDATION_FAILED',
        `Job ${selfName} cannot run after itself.`,
        'Name another job in --after or --after-all.',
        {
          cycle: [selfName, selfName],
        },
      );
    }
  }
  if (afterAll.length === 1) {
    throw inputError(
      'VALIDATION_FAILED',
      '--after-all needs at least two upstream jobs.',
      'For one upstream job use --after JOB; --after-all waits for several to succeed.',
    );
  }
  return { after, afterAll };
}

/** `--placement once|every-host` and `--on KEY=VALUE`; `clear: ['on']` lets the job run on any node again. */
export function buildPlacement(
  current: Placement,
  fields: Pick<JobPatch, 'placement' | 'on' | 'clear'>,
  checkLabels: (labels: Record<string, string>) => Record<string, string>,
): Placement {
  const cleared = new Set(fields.clear ?? []);
  return {
    mode: fields.placement === undefined ? current.mode : parsePlacement(fields.placement),
    on: cleared.has('on') ? {} : fields.on === undefined ? current.on : checkLabels(fields.on),
  };
}

function parsePlacement(text: string): Placement['mode'] {
  const value = text.trim().toLowerCase();
  if (value === 'once' || value === 'every-host') return value;
  throw inputError(
    'VALIDATION_FAILED',
    `Invalid --placement "${text}".`,
    'Use once (one run per instant in the whole cluster; the default) or every-host (each live node runs it, like a per-host cron).',
    { value: text },
  );
}

import { z } from 'zod';
import { alertsSchema } from './notify/alerts.js';

export {
  DEFAULT_BREAKER_SETTINGS,
  DEFAULT_PLACEMENT,
  DEFAULT_RETRY_POLICY,
  DEFAULT_TIME_POLICY,
} from './job-defaults.js';

export const MAX_PAYLOAD_BYTES = 1024 * 1024;
/** How deep a payload's objects and arrays may nest: validating and serialising it recurse. */
export const MAX_PAYLOAD_DEPTH = 100;
export const JOB_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** When a job fires. Instants are integer milliseconds since the epoch, UTC. */
export const scheduleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('cron'), expression: z.string().min(1) }),
  z.object({ kind: z.literal('at'), at: z.number().int() }),
  z.object({ kind: z.literal('every'), intervalMs: z.number().int().positive(), anchorMs: z.number().int() }),
  /** No time-based firing: the job runs only after other jobs (`--after`) or when triggered. */
  z.object({ kind: z.literal('none') }),
]);
export type Schedule = z.infer<typeof scheduleSchema>;

/** What a job runs: an argv executed directly, or a script given to `/bin/sh -c`. */
export const commandTargetSchema = z.object({
  kind: z.literal('command'),
  argv: z.array(z.string()).nullable(),
  shell: z.string().nullable(),
  cwd: z.string().nullable(),
  env: z.record(z.string(), z.string()),
});
export type CommandTarget = z.infer<typeof commandTargetSchema>;

/** Which HTTP statuses count as success: a class (`2xx`) or a list of exact codes. */
export const expectedStatusSchema = z.union([
  z.object({ kind: z.literal('class'), hundreds: z.number().int().min(1).max(5) }),
  z.object({ kind: z.literal('codes'), codes: z.array(z.number().int().min(100).max(599)).min(1) }),
]);
export type ExpectedStatus = z.infer<typeof expectedStatusSchema>;

/** A per-origin circuit breaker's settings: open after N consecutive failures, retry after a cool-down. */
export const breakerSettingsSchema = z.object({
  failureThreshold: z.number().int().min(1).max(1000),
  cooldownMs: z.number().int().positive(),
});
export type BreakerSettings = z.infer<typeof breakerSettingsSchema>;

/** An HTTP call; the job's payload is the request body (JSON). */
export const httpTargetSchema = z.object({
  kind: z.literal('http'),
  method: z.string().regex(/^[A-Z]+$/),
  url: z.string().url(),
  headers: z.record(z.string(), z.string()),
  expect: expectedStatusSchema,
  breaker: breakerSettingsSchema,
});
export type HttpTarget = z.infer<typeof httpTargetSchema>;

export const targetSchema = z.discriminatedUnion('kind', [commandTargetSchema, httpTargetSchema]);
export type Target = z.infer<typeof targetSchema>;

export const BACKOFF_TYPES = ['exponential', 'linear', 'constant'] as const;
export type BackoffType = (typeof BACKOFF_TYPES)[number];

/** How failed attempts are retried: `maxRetries` attempts after the first, exponential backoff with full jitter. */
export const retryPolicySchema = z.object({
  maxRetries: z.number().int().min(0).max(100),
  initialBackoffMs: z.number().int().min(0),
  factor: z.number().min(1).max(100),
  maxBackoffMs: z.number().int().min(0),
  jitter: z.boolean(),
  // Absent from definitions stored before retry rules; absent means exponential, no lists, no deadline.
  backoffType: z.enum(BACKOFF_TYPES).optional(),
  /** Exit codes (command jobs) or HTTP statuses (HTTP jobs) retried whatever their class. */
  retryOn: z.array(z.number().int().min(1).max(599)).optional(),
  /** Exit codes or HTTP statuses never retried. */
  noRetryOn: z.array(z.number().int().min(1).max(599)).optional(),
  /** No retry is scheduled later than this long after the instant's first attempt started. */
  deadlineMs: z.number().int().positive().optional(),
});
export type RetryPolicy = z.infer<typeof retryPolicySchema>;

/** How the job behaves in time: overlap, missed instants, clock changes, spread and jitter. */
export const timePolicySchema = z.object({
  concurrency: z.enum(['allow', 'forbid', 'replace', 'queue']),
  misfire: z.object({
    policy: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('skip') }),
      z.object({ kind: z.literal('latest') }),
      z.object({ kind: z.literal('all') }),
      z.object({ kind: z.literal('count'), count: z.number().int().min(1) }),
    ]),
    catchupWindowMs: z.number().int().min(0),
    skipIfNextWithinMs: z.number().int().min(0).nullable(),
  }),
  dst: z.object({ gap: z.enum(['shift', 'skip']), repeat: z.enum(['first', 'last', 'both']) }),
  /** A stable offset in [0, spreadMs) per job, so jobs on one expression do not all fire at :00. */
  spreadMs: z.number().int().min(0).nullable(),
  /** A fresh random delay in [0, jitterMs] per instant. */
  jitterMs: z.number().int().min(0).nullable(),
});
export type TimePolicy = z.infer<typeof timePolicySchema>;

/** `--after JOB[:on]`: run when that job's instant ends this way; `job` is its id once stored. */
export const dependencySchema = z.object({
  job: z.string().min(1),
  on: z.enum(['success', 'failure', 'always']),
});
export type JobDependency = z.infer<typeof dependencySchema>;

/** Where in a federation a job runs: one node per instant (`once`) or every live node (`every-host`). */
export const placementSchema = z.object({
  mode: z.enum(['once', 'every-host']),
  /** Only nodes whose labels match every one of these (`--on KEY=VALUE`). */
  on: z.record(z.string(), z.string()),
});
export type Placement = z.infer<typeof placementSchema>;

/** A job as the user defined it, normalized: what `sched export` would write back out. */
export const jobDefinitionSchema = z.object({
  name: z.string().regex(JOB_NAME_PATTERN),
  description: z.string().nullable(),
  schedule: scheduleSchema,
  timezone: z.string().min(1),
  target: targetSchema,
  payload: z.json().nullable(),
  timeoutMs: z.number().int().positive().nullable(),
  labels: z.record(z.string(), z.string()),
  retry: retryPolicySchema,
  policy: timePolicySchema,
  /** Each of these ending its instant the given way triggers a run. */
  after: z.array(dependencySchema),
  /** Fan-in: one run once every one of these has succeeded since this job last ran. */
  afterAll: z.array(z.string().min(1)),
  placement: placementSchema,
  /** Notifications and the dead-man's switch (`--notify`, `--notify-on`, `--expect-success-every`). */
  alerts: alertsSchema.optional(),
});
export type JobDefinition = z.infer<typeof jobDefinitionSchema>;

export const JOB_STATES = ['active', 'paused', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** A stored job: its definition plus the bookkeeping the scheduler keeps. */
export interface Job extends JobDefinition {
  id: string;
  state: JobState;
  version: number;
  owner: string;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
  /** The next instant this job is due, or null when it will not fire again (paused, done, cancelled). */
  nextRunAt: number | null;
  /** Set by the daemon on listings while the job's dead-man's switch has tripped: since when. */
  overdueSince?: number;
}

/**
 * What a client sends to create a job: raw text as the user typed it. The daemon normalizes it with
 * `normalizeJobInput`, which is where "now", the default zone and every check are applied.
 */
export const jobInputSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  cron: z.string().optional(),
  at: z.string().optional(),
  every: z.string().optional(),
  /** Where an `every` grid starts, as an ISO instant (default: when the job is added); for restores. */
  everyAnchor: z.string().optional(),
  timezone: z.string().optional(),
  argv: z.array(z.string()).optional(),
  shell: z.string().optional(),
  /** An HTTP target instead of a command. */
  http: z.string().optional(),
  method: z.string().optional(),
  /** `Name: value` lines, as typed. */
  headers: z.array(z.string()).optional(),
  /** `2xx`, or a list such as `200,204`. */
  expect: z.string().optional(),
  breakerFailures: z.number().optional(),
  breakerCooldown: z.string().optional(),
  retries: z.number().optional(),
  backoff: z.string().optional(),
  backoffFactor: z.number().optional(),
  backoffMax: z.string().optional(),
  jitter: z.boolean().optional(),
  /** `exponential`, `linear` or `constant`. */
  backoffType: z.string().optional(),
  /** Exit codes or HTTP statuses, comma-separated, as typed. */
  retryOn: z.string().optional(),
  noRetryOn: z.string().optional(),
  retryDeadline: z.string().optional(),
  concurrency: z.string().optional(),
  /** `skip`, `latest`, `all` or `count:N`. */
  misfire: z.string().optional(),
  catchupWindow: z.string().optional(),
  skipIfNextWithin: z.string().optional(),
  dstGap: z.string().optional(),
  dstRepeat: z.string().optional(),
  spread: z.string().optional(),
  /** A random delay per instant, as a duration (not the retry backoff's jitter switch). */
  fireJitter: z.string().optional(),
  /** `JOB` or `JOB:success|failure|always`, as typed. */
  after: z.array(z.string()).optional(),
  afterAll: z.array(z.string()).optional(),
  /** `once` or `every-host`. */
  placement: z.string().optional(),
  /** `--on KEY=VALUE` node labels the job is kept to. */
  on: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** JSON text, as typed; parsed and size-checked by normalization. */
  payload: z.string().optional(),
  timeout: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  /** `--notify URL`, repeatable; replaces the job's targets wholesale. */
  notify: z.array(z.string()).optional(),
  /** `failure,dead,recovered,success,overdue`, as typed. */
  notifyOn: z.string().optional(),
  /** `--expect-success-every D`, as typed. */
  expectSuccessEvery: z.string().optional(),
});
export type JobInput = z.infer<typeof jobInputSchema>;

/** A partial change to a job; absent fields keep their value. */
export const jobPatchSchema = jobInputSchema.partial().extend({
  /** Clear fields back to their defaults: `timeout`, `payload`, `description`, `cwd`. */
  clear: z
    .array(
      z.enum([
        'timeout',
        'payload',
        'description',
        'cwd',
        'spread',
        'fireJitter',
        'skipIfNextWithin',
        'after',
        'afterAll',
        'on',
        'retryOn',
        'noRetryOn',
        'retryDeadline',
        'notify',
        'notifyOn',
        'expectSuccessEvery',
      ]),
    )
    .optional(),
});
export type JobPatch = z.infer<typeof jobPatchSchema>;

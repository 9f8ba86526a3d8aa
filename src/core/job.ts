import { z } from 'zod';

export const MAX_PAYLOAD_BYTES = 1024 * 1024;
export const JOB_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** When a job fires. Instants are integer milliseconds since the epoch, UTC. */
export const scheduleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('cron'), expression: z.string().min(1) }),
  z.object({ kind: z.literal('at'), at: z.number().int() }),
  z.object({ kind: z.literal('every'), intervalMs: z.number().int().positive(), anchorMs: z.number().int() }),
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

export const targetSchema = commandTargetSchema;
export type Target = z.infer<typeof targetSchema>;

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
  timezone: z.string().optional(),
  argv: z.array(z.string()).optional(),
  shell: z.string().optional(),
  cwd: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** JSON text, as typed; parsed and size-checked by normalization. */
  payload: z.string().optional(),
  timeout: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
});
export type JobInput = z.infer<typeof jobInputSchema>;

/** A partial change to a job; absent fields keep their value. */
export const jobPatchSchema = jobInputSchema.partial().extend({
  /** Clear fields back to their defaults: `timeout`, `payload`, `description`, `cwd`. */
  clear: z.array(z.enum(['timeout', 'payload', 'description', 'cwd'])).optional(),
});
export type JobPatch = z.infer<typeof jobPatchSchema>;

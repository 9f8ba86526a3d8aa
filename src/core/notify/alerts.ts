import { z } from 'zod';

/** What a notification is about: a failed attempt, a run no retry follows, a success after those, any success, silence. */
export const NOTIFY_EVENTS = ['failure', 'dead', 'recovered', 'success', 'overdue'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

export const DEFAULT_NOTIFY_ON: readonly NotifyEvent[] = ['dead', 'recovered'];

/** Who hears about a job and when it counts as silent; part of the job's definition. */
export const alertsSchema = z.object({
  /** Target URLs (webhook, slack+, teams+, mailto:); empty means the config's `[notify] targets`. */
  notify: z.array(z.string().min(1)),
  /** Null means the config's `[notify] on`, else dead and recovered. */
  notifyOn: z.array(z.enum(NOTIFY_EVENTS)).nullable(),
  /** The dead-man's switch: the job is overdue once no run has succeeded for this long. */
  expectSuccessEveryMs: z.number().int().positive().nullable(),
});
export type Alerts = z.infer<typeof alertsSchema>;

export const DEFAULT_ALERTS: Alerts = { notify: [], notifyOn: null, expectSuccessEveryMs: null };

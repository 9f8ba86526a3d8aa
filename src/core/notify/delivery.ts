import type { NotifyEvent } from './alerts.js';

/** `pending` until sent or given up on; `suppressed` when the job's throttle held it back for a summary. */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'suppressed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** What a delivery tells: one of the events, or a summary of the messages a throttle held back. */
export const DELIVERY_KINDS = ['failure', 'dead', 'recovered', 'success', 'overdue', 'summary'] as const;
export type DeliveryKind = NotifyEvent | 'summary';

/** One message to one target, stored before it is sent so that no restart loses it. */
export interface Delivery {
  id: string;
  jobId: string;
  jobName: string;
  /** The run it is about; null for an overdue job and a summary. */
  runId: string | null;
  kind: DeliveryKind;
  /** The target URL as the job (or config) names it. */
  target: string;
  /** One message per (what happened, target): a second insert of the same key is dropped. */
  dedupKey: string;
  state: DeliveryState;
  attempts: number;
  /** When the next attempt is due (pending), or was made. */
  dueAt: number;
  createdAt: number;
  finishedAt: number | null;
  /** What the target last answered, such as `HTTP 200` or `250 OK`. */
  answer: string | null;
  lastError: string | null;
  /** A sentence about what happened, for the message (an overdue job's silence, a summary's count). */
  detail: string;
}

export type NewDelivery = Omit<
  Delivery,
  'jobName' | 'state' | 'attempts' | 'finishedAt' | 'answer' | 'lastError'
>;

/** What an attempt changed: delivered, given up, or due again later. */
export interface DeliveryAttempt {
  state: DeliveryState;
  attempts: number;
  dueAt: number;
  finishedAt: number | null;
  answer: string | null;
  lastError: string | null;
}

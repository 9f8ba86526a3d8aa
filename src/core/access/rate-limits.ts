/**
 * What the daemon counts, per caller, to keep one runaway script from swamping a daemon others share:
 * requests of each verb a minute (`trigger`: a minute for each job).
 */
export const RATE_VERBS = ['create', 'update', 'delete', 'get', 'list', 'trigger', 'history'] as const;
export type RateVerb = (typeof RATE_VERBS)[number];

export interface RateLimits {
  /** Requests a minute by verb; null: that verb is not limited. */
  perMinute: Readonly<Record<RateVerb, number | null>>;
  /** Whether admins (the daemon's user and root among them) go unlimited. */
  exemptAdmins: boolean;
}

/** The design documents' table (per minute). */
export const DEFAULT_RATE_LIMITS: RateLimits = Object.freeze({
  perMinute: Object.freeze({
    create: 100,
    update: 50,
    delete: 25,
    get: 500,
    list: 200,
    trigger: 10,
    history: 100,
  }),
  exemptAdmins: true,
});

/** The verb's noun in a refusal: "too many triggers". */
export const RATE_VERB_NOUNS: Readonly<Record<RateVerb, string>> = {
  create: 'jobs added',
  update: 'job changes',
  delete: 'cancellations',
  get: 'reads of one job or run',
  list: 'listings',
  trigger: 'manual runs of this job',
  history: 'history and audit reads',
};

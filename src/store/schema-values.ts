import { sql } from 'drizzle-orm';

// The values of the enumerated columns, the same in both schemas: the core's own lists, so a state the
// core adds is one the CHECK constraints know (after a migration). drizzle-kit loads the schemas on their
// own; these core modules import nothing but zod.
export { JOB_STATES as JOB_STATE_VALUES } from '../core/job.js';
export { RUN_STATES as RUN_STATE_VALUES, RUN_TRIGGERS as RUN_TRIGGER_VALUES } from '../core/run.js';
export { OCCURRENCE_OUTCOMES as OCCURRENCE_OUTCOME_VALUES } from '../core/ledger/entry.js';
export {
  DELIVERY_KINDS as DELIVERY_KIND_VALUES,
  DELIVERY_STATES as DELIVERY_STATE_VALUES,
} from '../core/notify/delivery.js';
export { API_TOKEN_ROLES as API_TOKEN_ROLE_VALUES } from '../core/access/api-token.js';
/** `success`, `failure`, `always` for `--after`; `all` for `--after-all` (checked in sql/records.ts). */
export const DEPENDENCY_ON_VALUES = ['success', 'failure', 'always', 'all'] as const;

/** A CHECK's list of allowed values. */
export const inList = (values: readonly string[]) => sql.raw(values.map((value) => `'${value}'`).join(', '));

import { sql, type SQL } from 'drizzle-orm';
import type { JobState } from '../core/job.js';

// The WHERE of partial indexes on `jobs`, written once for the index and the query it serves: SQLite uses a
// partial index only for a query that repeats its WHERE (a bound parameter does not count), and
// PostgreSQL's planner proves nothing from a parameter in a generic plan. drizzle-kit loads the schemas,
// and so this file, on their own: it imports nothing else from src/.

/** One small index per state, which counting the jobs of that state walks alone. */
export const jobInState = (state: JobState): SQL => sql.raw(`state = '${state}'`);

/** Active jobs with no next instant: done one-shot jobs and those that only run after others. */
export const ACTIVE_WITHOUT_NEXT_RUN = sql.raw(`state = 'active' AND next_run_at IS NULL`);

/**
 * The definition sets a dead-man's switch: the overdue watch reads only these jobs, from an index that holds a
 * handful where the table may hold a million. A column the store writes with the definition, not a test of
 * the definition's JSON: PostgreSQL evaluates a partial index's condition on every new row version, and an
 * update of next_run_at (each fire) parsed the definition four times for these two (49 us a row, 22 without).
 */
export const EXPECTS_SUCCESS = sql.raw(`expects_success`);

/**
 * The definition holds a secret value (an environment or header value, or a payload; see core/secrets):
 * the start's check of what the stored secrets are sealed under, and re-sealing, read only these jobs, from
 * an index that holds none of the jobs without any, where a start read a million jobs to find none.
 */
export const HOLDS_SECRETS = sql.raw(`holds_secrets`);

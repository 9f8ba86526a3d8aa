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
 * The definition sets a dead-man's switch (a JSON null is NULL too): the overdue watch reads only these
 * jobs, from an index that holds a handful where the table may hold a million.
 */
export const SQLITE_EXPECTS_SUCCESS = sql.raw(
  `json_extract(definition, '$.alerts.expectSuccessEveryMs') IS NOT NULL`,
);
/** As json rather than jsonb, which refuses the \u0000 a definition's strings may hold. */
export const POSTGRES_EXPECTS_SUCCESS = sql.raw(
  `(definition::json -> 'alerts' ->> 'expectSuccessEveryMs') IS NOT NULL`,
);

/**
 * The definition holds a secret value (an environment or header value, or a payload; see core/secrets):
 * the start's check of what the stored secrets are sealed under, and re-sealing, read only these jobs, from
 * an index that holds none of the jobs without any, where a start read a million jobs to find none.
 * Definitions are written by JSON.stringify, so an empty map is `{}`; anything else only adds a job to read.
 */
export const SQLITE_HOLDS_SECRETS = sql.raw(
  `(json_extract(definition, '$.payload') IS NOT NULL` +
    ` OR json_extract(definition, '$.target.env') <> '{}'` +
    ` OR json_extract(definition, '$.target.headers') <> '{}')`,
);
export const POSTGRES_HOLDS_SECRETS = sql.raw(
  `((definition::json ->> 'payload') IS NOT NULL` +
    ` OR (definition::json -> 'target' ->> 'env') <> '{}'` +
    ` OR (definition::json -> 'target' ->> 'headers') <> '{}')`,
);

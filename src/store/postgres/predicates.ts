import { sql } from 'drizzle-orm';
import { jobs, runs } from './schema.js';

// Partial indexes are only used when the planner can prove their WHERE from the query's, and a bound
// parameter ($1 = 'active') proves nothing in a generic plan: these stay literal SQL.
export const DUE = sql`${jobs.state} = 'active' AND ${jobs.deletedAt} IS NULL AND ${jobs.nextRunAt} IS NOT NULL`;
export const UNFINISHED = sql`${runs.state} IN ('scheduled', 'running')`;
export const WAITING = sql`${runs.state} = 'scheduled'`;
export const FINAL = sql`${runs.state} IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'lost')`;

export const FENCE_EPOCH_KEY = 'fence_epoch';

// The unique indexes whose violations mean something to the caller.
export const LIVE_NAME_INDEX = 'jobs_live_name_unique';
export const RUN_KEY_INDEX = 'runs_instant_unique';

import { sql } from 'drizzle-orm';

// The values of the enumerated columns, the same in both schemas. drizzle-kit loads the schemas on their
// own, so this file imports nothing from src/; sql/records.ts checks the lists against the core's types.
export const JOB_STATE_VALUES = ['active', 'paused', 'cancelled'] as const;
export const RUN_STATE_VALUES = [
  'scheduled',
  'running',
  'succeeded',
  'failed',
  'timed_out',
  'cancelled',
  'lost',
] as const;
export const RUN_TRIGGER_VALUES = [
  'schedule',
  'manual',
  'retry',
  'catchup',
  'backfill',
  'dependency',
] as const;
export const OCCURRENCE_OUTCOME_VALUES = [
  'ran',
  'skipped-overlap',
  'missed-while-down',
  'outside-catchup-window',
  'dst-skipped',
  'paused',
  'deduplicated',
] as const;
export const DEPENDENCY_ON_VALUES = ['success', 'failure', 'always', 'all'] as const;

/** A CHECK's list of allowed values. */
export const inList = (values: readonly string[]) => sql.raw(values.map((value) => `'${value}'`).join(', '));

import type { JobState } from '../../core/job.js';
import type { OccurrenceOutcome } from '../../core/ledger/entry.js';
import type { Run, RunState, RunTrigger } from '../../core/run.js';
import type {
  DEPENDENCY_ON_VALUES,
  JOB_STATE_VALUES,
  OCCURRENCE_OUTCOME_VALUES,
  RUN_STATE_VALUES,
  RUN_TRIGGER_VALUES,
} from '../schema-values.js';
import type { DependencyEdge } from '../store.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The schemas cannot import the core (drizzle-kit loads them alone), so a drift fails to compile here.
const _jobStatesMatchCore: Same<(typeof JOB_STATE_VALUES)[number], JobState> = true;
const _runStatesMatchCore: Same<(typeof RUN_STATE_VALUES)[number], RunState> = true;
const _runTriggersMatchCore: Same<(typeof RUN_TRIGGER_VALUES)[number], RunTrigger> = true;
const _outcomesMatchCore: Same<(typeof OCCURRENCE_OUTCOME_VALUES)[number], OccurrenceOutcome> = true;
const _dependencyOnMatchesCore: Same<(typeof DEPENDENCY_ON_VALUES)[number], DependencyEdge['on']> = true;

// The rows the shared statements read and write, as both schemas type them (each dialect checks its
// schema against these where it hands its tables over).

export interface JobRecord {
  id: string;
  name: string;
  state: JobState;
  /** The whole JobDefinition as JSON text. */
  definition: string;
  /** The labels as the dialect filters them (JSON text, or jsonb). */
  labels: unknown;
  owner: string;
  version: number;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
  nextRunAt: number | null;
}

/** A run with its job's name, as stored (response headers as JSON text). */
export type RunRecord = Omit<Run, 'responseHeaders'> & { responseHeaders: string | null };

export interface AuditRecord {
  id: string;
  at: number;
  actor: string;
  action: string;
  jobId: string | null;
  before: string | null;
  after: string | null;
}

export interface DependencyRecord {
  jobId: string;
  upstreamId: string;
  on: DependencyEdge['on'];
}

export interface IdempotencyRow {
  key: string;
  method: string;
  fingerprint: string;
  response: string;
  createdAt: number;
}

/** How a dialect stores values that its columns cannot hold as they are. */
export interface RowEncoding {
  /** The copy of a job's labels kept for filtering in SQL. */
  labels(labels: Record<string, string>): unknown;
  /** Free text from outside the store (an error message, a reason). */
  text(value: string): string;
}

import type { JobState } from '../../core/job.js';
import type { Run } from '../../core/run.js';
import type { DEPENDENCY_ON_VALUES } from '../schema-values.js';
import type { DependencyEdge } from '../store.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The core has no list of these; a drift fails to compile here.
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
  /** What the partial indexes on jobs select by, worked out from the definition as it is written. */
  expectsSuccess: boolean;
  holdsSecrets: boolean;
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

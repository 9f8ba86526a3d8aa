import {
  DEFAULT_RETRY_POLICY,
  DEFAULT_TIME_POLICY,
  DEFAULT_PLACEMENT,
  type JobDefinition,
} from '../../../src/core/job.js';
import type { RunOutcome } from '../../../src/core/run.js';
import { newId } from '../../../src/store/ids.js';
import type { AuditStamp, NewJob, NewRun, Store } from '../../../src/store/store.js';

/** The store under test, fresh for every test. */
export type CurrentStore = () => Store;

export const T0 = Date.UTC(2030, 0, 1);

export function definition(name: string, overrides: Partial<JobDefinition> = {}): JobDefinition {
  return {
    name,
    description: null,
    schedule: { kind: 'every', intervalMs: 60_000, anchorMs: T0 },
    timezone: 'UTC',
    target: { kind: 'command', argv: ['true'], shell: null, cwd: null, env: {} },
    payload: null,
    timeoutMs: null,
    labels: {},
    retry: DEFAULT_RETRY_POLICY,
    policy: DEFAULT_TIME_POLICY,
    after: [],
    afterAll: [],
    placement: DEFAULT_PLACEMENT,
    ...overrides,
  };
}

export function stamp(action: string, at = T0): AuditStamp {
  return { id: newId(), at, actor: 'alice', action };
}

export function newJob(
  name: string,
  options: Partial<Omit<NewJob, 'definition'>> & { labels?: Record<string, string> } = {},
): NewJob {
  const { labels, ...rest } = options;
  return {
    id: newId(),
    definition: definition(name, { labels: labels ?? {} }),
    owner: 'alice',
    now: T0,
    nextRunAt: T0 + 60_000,
    ...rest,
  };
}

export async function createJob(store: Store, name: string, options: Parameters<typeof newJob>[1] = {}) {
  return store.createJob(newJob(name, options), stamp('job.create', options.now ?? T0));
}

export function newRun(jobId: string, overrides: Partial<NewRun> = {}): NewRun {
  return {
    id: newId(),
    jobId,
    scheduledFor: T0 + 60_000,
    attempt: 1,
    trigger: 'schedule',
    node: 'node-a',
    fence: 1,
    now: T0 + 60_001,
    state: 'scheduled',
    dueAt: T0 + 60_000,
    ...overrides,
  };
}

export function outcome(overrides: Partial<RunOutcome> = {}): RunOutcome {
  return {
    state: 'succeeded',
    finishedAt: T0 + 61_000,
    exitCode: 0,
    signal: null,
    error: null,
    stdoutTail: 'hello\n',
    stderrTail: '',
    ...overrides,
  };
}

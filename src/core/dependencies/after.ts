import { editDistance } from '../edit-distance.js';
import { SchedError } from '../errors.js';
import { JOB_NAME_PATTERN } from '../job.js';
import type { RunState } from '../run.js';

/** How an upstream instant must end for `--after` to trigger: success, failure for good, or either. */
export type DependencyOutcome = 'success' | 'failure' | 'always';

export const DEPENDENCY_OUTCOMES: readonly DependencyOutcome[] = ['success', 'failure', 'always'];

/** One `--after JOB[:success|failure|always]`: the upstream job (a name or an id, as given) and the trigger. */
export interface Dependency {
  job: string;
  on: DependencyOutcome;
}

const AFTER_HINT =
  'Write --after JOB, or JOB:success, JOB:failure or JOB:always (success is the default), e.g. --after backup:failure.';

// Words people reach for that are not the outcome names; refused instead of being read as part of a job name.
const NEAR_MISSES: ReadonlyMap<string, DependencyOutcome> = new Map(
  Object.entries({
    succeeded: 'success',
    succeed: 'success',
    successful: 'success',
    ok: 'success',
    pass: 'success',
    passed: 'success',
    failed: 'failure',
    fail: 'failure',
    fails: 'failure',
    error: 'failure',
    any: 'always',
    done: 'always',
    complete: 'always',
    completed: 'always',
    finished: 'always',
    end: 'always',
  } as const),
);

/**
 * Parses `--after` text. Job names may contain `:`, so only a last segment that names an outcome (in any case)
 * is read as one: `a:b` is the job `a:b` on success, `a:b:failure` is `a:b` on failure. A last segment that
 * looks like a misspelt outcome (`:failed`, `:sucess`) is refused rather than taken as part of a name.
 */
export function parseAfter(text: string): Dependency {
  const trimmed = text.trim();
  const colon = trimmed.lastIndexOf(':');
  let job = trimmed;
  let on: DependencyOutcome = 'success';
  if (colon >= 0) {
    const suffix = trimmed.slice(colon + 1).toLowerCase();
    const outcome = DEPENDENCY_OUTCOMES.find((candidate) => candidate === suffix);
    if (outcome !== undefined) {
      job = trimmed.slice(0, colon);
      on = outcome;
    } else {
      const meant =
        NEAR_MISSES.get(suffix) ?? DEPENDENCY_OUTCOMES.find((name) => editDistance(suffix, name) <= 2);
      if (meant !== undefined) {
        throw new SchedError(
          'VALIDATION_FAILED',
          `Invalid --after "${text}": "${suffix}" is not an outcome.`,
          {
            hint: `Did you mean ${trimmed.slice(0, colon)}:${meant}? For a job named ${trimmed}, write ${trimmed}:success.`,
            details: { value: text, suggestion: `${trimmed.slice(0, colon)}:${meant}` },
          },
        );
      }
    }
  }
  if (job === '') {
    throw new SchedError('VALIDATION_FAILED', `Invalid --after "${text}": it names no job.`, {
      hint: AFTER_HINT,
      details: { value: text },
    });
  }
  if (!JOB_NAME_PATTERN.test(job)) {
    throw new SchedError('VALIDATION_FAILED', `Invalid --after "${text}": "${job}" is not a job name.`, {
      hint: `Job names start with a letter or digit and use letters, digits, ".", "_", ":" and "-". ${AFTER_HINT}`,
      details: { value: text, job },
    });
  }
  return { job, on };
}

/** How an upstream run ended, as far as triggering is concerned. */
export type UpstreamRunEnd = Extract<RunState, 'succeeded' | 'failed' | 'timed_out' | 'cancelled' | 'lost'>;

/**
 * Whether an upstream run that ended as `outcome` triggers a dependant waiting for `on`. An instant fails for
 * good only on its final attempt: a failed attempt that will be retried triggers nothing. `failure` means failed,
 * timed out or lost; a cancelled run is someone's decision rather than the job failing (as GitHub Actions'
 * `failure()` skips cancelled runs), so it triggers only `always`. Success is final whatever `isFinalAttempt`
 * says, since nothing retries a success.
 */
export function triggersOn(outcome: UpstreamRunEnd, on: DependencyOutcome, isFinalAttempt: boolean): boolean {
  if (outcome === 'succeeded') return on === 'success' || on === 'always';
  if (!isFinalAttempt) return false;
  if (on === 'always') return true;
  return on === 'failure' && outcome !== 'cancelled';
}

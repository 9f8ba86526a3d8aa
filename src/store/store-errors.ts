import { SchedError } from '../core/errors.js';

export function nameTaken(name: string): SchedError {
  return new SchedError('NAME_TAKEN', `A job named "${name}" already exists.`, {
    hint: `Choose another name, or change the existing job with \`sched update ${name}\`.`,
    details: { name },
  });
}

export function versionConflict(name: string, expected: number, actual: number): SchedError {
  return new SchedError(
    'VERSION_CONFLICT',
    `Job "${name}" was changed meanwhile (now version ${actual}, expected ${expected}).`,
    {
      hint: `Look at it again with \`sched show ${name}\` and retry.`,
      details: { expected, actual },
    },
  );
}

export function jobNotFound(ref: string): SchedError {
  return new SchedError('JOB_NOT_FOUND', `No job "${ref}".`, {
    hint: 'List the jobs with `sched ls`.',
    details: { ref },
  });
}

export function jobCancelled(name: string, id: string): SchedError {
  return new SchedError('INVALID_STATE', `Job "${name}" is cancelled and can no longer change.`, {
    hint: 'Create a new job with `sched add`; the cancelled one keeps its history.',
    details: { jobId: id, state: 'cancelled' },
  });
}

export function runNotFound(id: string): SchedError {
  return new SchedError('RUN_NOT_FOUND', `No run "${id}".`, {
    hint: 'List the runs of a job with `sched history JOB`.',
    details: { runId: id },
  });
}

export function runInWrongState(id: string, state: string, wanted: string): SchedError {
  return new SchedError('INVALID_STATE', `Run "${id}" is ${state}, so it cannot become ${wanted}.`, {
    details: { runId: id, state, wanted },
  });
}

export function runKeyTaken(jobId: string, scheduledFor: number, attempt: number): SchedError {
  return new SchedError(
    'INVALID_STATE',
    `Job "${jobId}" already has attempt ${attempt} for ${new Date(scheduledFor).toISOString()}.`,
    {
      hint: 'Wait a moment and trigger it again.',
      details: { jobId, scheduledFor, attempt },
    },
  );
}

export function idempotencyKeyTaken(key: string): SchedError {
  return new SchedError(
    'IDEMPOTENCY_MISMATCH',
    `The idempotency key "${key}" was used by another request meanwhile.`,
    {
      hint: 'Use a new key for a different request.',
      details: { key, keyTaken: true },
    },
  );
}

export function runAlreadyRetried(id: string, retriedBy: string): SchedError {
  return new SchedError('INVALID_STATE', `Run "${id}" was already retried by run ${retriedBy}.`, {
    hint: `Retry the newest attempt instead: \`sched retry ${retriedBy}\`.`,
    details: { runId: id, retriedBy },
  });
}

/** A fire decided on a shard map that is no longer the one in force. */
export function mapReplaced(fence: { term: number }, currentTerm: number | null): SchedError {
  return new SchedError(
    'FENCED',
    `The shard map of term ${fence.term} has been replaced; this node may not fire from it.`,
    { details: { term: fence.term, current: currentTerm } },
  );
}

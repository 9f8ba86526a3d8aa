import type { Job, JobDefinition } from '../../core/job.js';
import { hasSecrets, mapSecrets, secretValues } from '../../core/secrets/secret-fields.js';
import { isSealed, keyIdOf, type SecretBox } from './secret-box.js';

type SecretBearing = Pick<JobDefinition, 'target' | 'payload'>;

/** Seals a job's secret values for the store and opens them again when the job is read. */
export class DefinitionSealer {
  constructor(readonly box: SecretBox) {}

  /** The definition with each secret value sealed under the current key (the payload as its JSON text). */
  seal<D extends SecretBearing>(definition: D, jobId: string): D {
    if (!hasSecrets(definition)) return definition;
    return mapSecrets(definition, {
      value: (text) => this.box.seal(text, jobId),
      payload: (payload) => this.box.seal(JSON.stringify(payload), jobId),
    });
  }

  /** The job with its secret values opened; values stored before sealing existed are plain and kept. */
  open<J extends SecretBearing & { id: string }>(job: J): J {
    if (!hasSecrets(job)) return job;
    return mapSecrets(job, {
      value: (text) => (isSealed(text) ? this.box.open(text, job.id) : text),
      payload: (payload) =>
        isSealed(payload) ? (JSON.parse(this.box.open(payload, job.id)) as unknown) : payload,
    });
  }

  /** Whether a stored job has a value that is plain or sealed under another key than the current one. */
  needsResealing(job: Job): boolean {
    const { keyIds, plain } = sealingOf(job);
    const current = this.box.keyring.current().id;
    return plain || [...keyIds].some((id) => id !== current);
  }
}

/** The ids of the keys a stored job's values are sealed under, and whether any value is still plain. */
export function sealingOf(job: SecretBearing): { keyIds: Set<string>; plain: boolean } {
  const keyIds = new Set<string>();
  let plain = false;
  for (const { value } of secretValues(job)) {
    const id = isSealed(value) ? keyIdOf(value) : null;
    if (id === null) plain = true;
    else keyIds.add(id);
  }
  return { keyIds, plain };
}

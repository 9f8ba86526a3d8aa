import type { JobDefinition } from '../../core/job.js';
import { hasSecrets, mapSecrets, secretValues } from '../../core/secrets/secret-fields.js';
import { isSealed, isSealedTogether, keyIdOf, type PlacedValue, type SecretBox } from './secret-box.js';

type SecretBearing = Pick<JobDefinition, 'target' | 'payload'>;

/** Seals a job's secret values for the store and opens them again when the job is read. */
export class DefinitionSealer {
  constructor(readonly box: SecretBox) {}

  /** The definition with its secret values sealed together under the current key (the payload as its JSON text). */
  seal<D extends SecretBearing>(definition: D, jobId: string): D {
    if (!hasSecrets(definition)) return definition;
    const values = secretValues(definition).map(({ where, value }) => ({
      where,
      text: where === 'payload' ? JSON.stringify(value) : (value as string),
    }));
    return replaceSecrets(definition, this.box.sealTogether(values, jobId));
  }

  /**
   * The job with its secret values opened: those sealed together in one operation, those sealed one by one
   * (v1) each alone; values stored before sealing existed are plain and kept.
   */
  open<J extends SecretBearing & { id: string }>(job: J): J {
    if (!hasSecrets(job)) return job;
    const stored = secretValues(job);
    const together: PlacedValue[] = [];
    for (const { where, value } of stored) {
      if (isSealed(value) && isSealedTogether(value)) together.push({ where, text: value });
    }
    const opened = this.box.openTogether(together, job.id);
    let next = 0;
    const values = stored.map(({ where, value }) => {
      if (!isSealed(value)) return value;
      const text = isSealedTogether(value) ? opened[next++]! : this.box.open(value, job.id);
      return where === 'payload' ? (JSON.parse(text) as unknown) : text;
    });
    return replaceSecrets(job, values);
  }

  /** Whether a stored job has a value that is plain or sealed under another key than the current one. */
  needsResealing(job: SecretBearing): boolean {
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

/** A copy of `definition` with its secret values, in secretValues' order, replaced by `values`. */
function replaceSecrets<D extends SecretBearing>(definition: D, values: unknown[]): D {
  let next = 0;
  return mapSecrets(definition, {
    value: () => values[next++] as string,
    payload: () => values[next++],
  });
}

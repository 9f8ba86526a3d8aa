import { SchedError } from '../errors.js';
import type { JobDefinition, JobInput } from '../job.js';
import { mapSecrets, secretValues } from './secret-fields.js';

/** What every output prints in place of a secret value unless an admin asks `--reveal`. */
export const MASK = '•••';

const MASKING = { value: () => MASK, payload: () => MASK };

/** The definition (or job) with each secret value replaced by MASK. */
export function maskDefinition<D extends Pick<JobDefinition, 'target' | 'payload'>>(definition: D): D {
  return mapSecrets(definition, MASKING);
}

/**
 * Whether `value` is shaped like a job definition: an object with a command or HTTP target and a
 * payload. That is how the edge finds the definitions inside any reply, an audit entry's images included.
 */
function isDefinition(value: object): value is Pick<JobDefinition, 'target' | 'payload'> {
  const target = (value as { target?: unknown }).target;
  if (typeof target !== 'object' || target === null || !('payload' in value)) return false;
  const kind = (target as { kind?: unknown }).kind;
  return (
    (kind === 'command' && typeof (target as { env?: unknown }).env === 'object') ||
    (kind === 'http' && typeof (target as { headers?: unknown }).headers === 'object')
  );
}

/**
 * A copy of `value` in which every job definition, however deep, has its secret values masked (and every
 * run's credential response headers); what holds none is returned as is. Replies and streamed events pass through this on their way out of the daemon,
 * so a reply shape added later cannot leak a secret by forgetting to mask it.
 */
export function maskDefinitionsIn<T>(value: T): T {
  return maskWithin(value, 0) as T;
}

// Definitions sit a few levels down (a page's items, an audit entry's before/after); a payload's own depth
// is never walked, since a definition is masked whole once found.
const MAX_DEPTH = 8;

function maskWithin(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    value.forEach((item, index) => {
      const masked = maskWithin(item, depth + 1);
      if (masked !== item) (copy ??= [...value])[index] = masked;
    });
    return copy ?? value;
  }
  if (isDefinition(value)) return maskDefinition(value);
  let copy: Record<string, unknown> | null = null;
  for (const [key, item] of Object.entries(value)) {
    // A run's HTTP response headers: runs stored before they were masked when captured are masked here.
    const masked =
      key === 'responseHeaders' && typeof item === 'object' && item !== null
        ? maskResponseHeaders(item as Record<string, string>)
        : maskWithin(item, depth + 1);
    if (masked !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = masked;
  }
  return copy ?? value;
}

/** Refuses a definition that holds MASK as a secret value: copied from an output, it would replace the real one. */
export function assertNoMaskedSecrets(definition: Pick<JobDefinition, 'target' | 'payload'>): void {
  const places = maskedPlaces(definition);
  if (places.length === 0) return;
  throw new SchedError(
    'VALIDATION_FAILED',
    `${places.join(', ')} would be ${MASK}, which is what sched prints in place of a secret value.`,
    {
      hint: 'Give the real value (an admin sees it with `sched show JOB --reveal`), or leave the option out to keep the stored one.',
      details: { masked: places },
    },
  );
}

/** Where a definition holds MASK itself as a value: it came from an output made without `--reveal`. */
export function maskedPlaces(definition: Pick<JobDefinition, 'target' | 'payload'>): string[] {
  return secretValues(definition)
    .filter(({ value }) => value === MASK)
    .map(({ where }) => where);
}

/**
 * Where a job's input as typed holds MASK as a secret value: an env value, a header line's value, or the
 * payload as JSON text (what an import reads from an export made without `--reveal`).
 */
export function maskedInputPlaces(input: Pick<JobInput, 'env' | 'headers' | 'payload'>): string[] {
  const places: string[] = [];
  for (const [name, value] of Object.entries(input.env ?? {})) if (value === MASK) places.push(`env ${name}`);
  for (const line of input.headers ?? []) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(colon + 1).trim() === MASK)
      places.push(`header ${line.slice(0, colon).trim()}`);
  }
  if (input.payload !== undefined && input.payload.trim() === JSON.stringify(MASK)) places.push('payload');
  return places;
}

/** Response headers whose values are credentials; `sched logs` and the stored run never show them. */
const CREDENTIAL_HEADERS = new Set(['set-cookie', 'authorization', 'proxy-authorization']);

/** An HTTP response's headers with the values of credential headers replaced by MASK. */
export function maskResponseHeaders(headers: Record<string, string>): Record<string, string> {
  let copy: Record<string, string> | null = null;
  for (const name of Object.keys(headers))
    if (CREDENTIAL_HEADERS.has(name.toLowerCase())) (copy ??= { ...headers })[name] = MASK;
  return copy ?? headers;
}

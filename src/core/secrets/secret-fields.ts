import type { JobDefinition } from '../job.js';

/**
 * What of a job is secret: the values (never the names) of its command's environment and of its HTTP
 * request's headers, and its payload. Names stay readable so `sched show` can say what a job sets.
 */
export interface SecretTransform {
  /** An environment or header value. */
  value(text: string, where: string): string;
  /** The payload, when there is one (a JSON value; what comes back takes its place). */
  payload(payload: unknown): unknown;
}

type SecretBearing = Pick<JobDefinition, 'target' | 'payload'>;

/** A copy of `definition` with every secret value passed through `transform`; everything else is shared. */
export function mapSecrets<D extends SecretBearing>(definition: D, transform: SecretTransform): D {
  const { target } = definition;
  const mapped =
    target.kind === 'command'
      ? { ...target, env: mapValues(target.env, 'env', transform) }
      : { ...target, headers: mapValues(target.headers, 'header', transform) };
  return {
    ...definition,
    target: mapped,
    payload: definition.payload === null ? null : (transform.payload(definition.payload) as D['payload']),
  };
}

/** Whether a definition holds any secret value at all (most do not, and need no work). */
export function hasSecrets(definition: SecretBearing): boolean {
  const values = definition.target.kind === 'command' ? definition.target.env : definition.target.headers;
  return definition.payload !== null || Object.keys(values).length > 0;
}

/** The secret values of a definition, each with where it sits (`env TOKEN`, `header Authorization`, `payload`). */
export function secretValues(definition: SecretBearing): { where: string; value: unknown }[] {
  const found: { where: string; value: unknown }[] = [];
  mapSecrets(definition, {
    value: (text, where) => (found.push({ where, value: text }), text),
    payload: (payload) => (found.push({ where: 'payload', value: payload }), payload),
  });
  return found;
}

function mapValues(
  values: Record<string, string>,
  kind: 'env' | 'header',
  transform: SecretTransform,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, text] of Object.entries(values)) out[name] = transform.value(text, `${kind} ${name}`);
  return out;
}

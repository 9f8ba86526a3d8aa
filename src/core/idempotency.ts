/**
 * Idempotency keys make a repeated `add` or `trigger` (a retry after a lost reply) happen once. The
 * daemon hashes `canonicalJson(request)` into a fingerprint and keeps it with the key for a day.
 */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

export type IdempotencyVerdict = 'new' | 'replay' | 'mismatch';

export interface StoredIdempotentRequest {
  requestFingerprint: string;
  createdAt: number;
  method: string;
}

export interface IdempotentRequest {
  fingerprint: string;
  method: string;
}

/**
 * What to do with a request under a key: `new` when the key is unused or its record has expired,
 * `replay` (answer as the first time) when it is the same request, `mismatch` when the key was used for
 * something else. A record from the "future" (the clock went back) still counts, so nothing runs twice.
 */
export function matchIdempotentRequest(
  stored: StoredIdempotentRequest | null,
  request: IdempotentRequest,
  now: number,
): IdempotencyVerdict {
  if (stored === null || now - stored.createdAt >= IDEMPOTENCY_WINDOW_MS) return 'new';
  return stored.method === request.method && stored.requestFingerprint === request.fingerprint
    ? 'replay'
    : 'mismatch';
}

/**
 * JSON with object keys sorted (by UTF-16 code units, as RFC 8785 does), so the same value always gives
 * the same text whatever order its keys were built in. Otherwise as JSON.stringify: `toJSON` is honoured,
 * undefined and functions are dropped from objects and become null in arrays, non-finite numbers are null.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set()) ?? 'null';
}

function write(value: unknown, ancestors: Set<object>): string | undefined {
  const json = hasToJson(value) ? value.toJSON() : value;
  if (json === null || typeof json === 'boolean' || typeof json === 'number' || typeof json === 'string')
    return JSON.stringify(json);
  if (typeof json !== 'object') {
    if (typeof json === 'bigint') throw new TypeError('canonicalJson cannot encode a bigint.');
    return undefined; // undefined, functions and symbols, as JSON.stringify drops them
  }
  if (ancestors.has(json)) throw new TypeError('canonicalJson cannot encode a cyclic value.');
  ancestors.add(json);
  try {
    if (Array.isArray(json)) return `[${json.map((item) => write(item, ancestors) ?? 'null').join(',')}]`;
    const members: string[] = [];
    for (const key of Object.keys(json).sort()) {
      const member = write((json as Record<string, unknown>)[key], ancestors);
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
    }
    return `{${members.join(',')}}`;
  } finally {
    ancestors.delete(json);
  }
}

function hasToJson(value: unknown): value is { toJSON(): unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  );
}

/** The statuses whose `Retry-After` header says when to come back (RFC 9110 §10.2.3). */
const STATUSES_WITH_RETRY_AFTER: ReadonlySet<number> = new Set([429, 503]);

/**
 * The delay a 429 or 503 response asks for in its `Retry-After` header: whole seconds, or an HTTP date
 * (which `now` turns into a delay; a date already past asks for none). Null when the status carries no such
 * request or the header is absent or unreadable, so the policy's own backoff applies.
 */
export function retryAfterMs(
  status: number | null | undefined,
  headers: Record<string, string> | null | undefined,
  now: number,
): number | null {
  if (status === null || status === undefined || !STATUSES_WITH_RETRY_AFTER.has(status)) return null;
  const value = headers?.['retry-after']?.trim();
  if (value === undefined || value === '') return null;
  if (/^\d+$/.test(value)) return Number(value) * 1_000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

import { inputError } from './input-error.js';
import type { ExpectedStatus, JobDefinition } from './job.js';
import { parseBoundedDuration } from './normalize-duration.js';

/** RFC 9110 `token`: what a header name may be made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, obs-text, space and tab: no CR or LF to smuggle in a second header, no NUL. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
// The stored method must match `httpTargetSchema` (letters only), which is stricter than an RFC token.
const METHOD = /^[A-Z]+$/;
// fetch refuses these outright; a job that can never send its request is better refused when added.
const UNSENDABLE_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
const BODYLESS_METHODS = new Set(['GET', 'HEAD']);
/** Sent by sched on every request, so that receivers can deduplicate and fence stale daemons. */
const SCHED_HEADERS = new Set(['idempotency-key', 'x-sched-fence']);
/** Framing and connection headers belong to the HTTP client, which computes them per request. */
const TRANSPORT_HEADERS = new Set([
  'connection',
  'content-length',
  'expect',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
]);

const URL_HINT = 'Give an absolute http:// or https:// URL, such as https://example.com/hooks/nightly.';
const METHOD_HINT = 'Give a method such as GET, POST, PUT, PATCH or DELETE.';
const HEADER_HINT = "Write each header as 'Name: value', such as --header 'Authorization: Bearer $TOKEN'.";
const EXPECT_HINT = 'Give a status class such as 2xx, or a list of status codes such as 200,204.';

/** An absolute http(s) URL, in the WHATWG serialisation (`HTTP://Example.com` becomes `http://example.com/`). */
export function checkUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw inputError('VALIDATION_FAILED', `Invalid URL "${text}".`, URL_HINT, { url: text });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw inputError('VALIDATION_FAILED', `The URL "${text}" is not http or https.`, URL_HINT, { url: text });
  }
  if (url.username !== '' || url.password !== '') {
    // fetch refuses URLs with credentials, and `sched show` prints the URL; keep the secret out of both.
    if (url.password !== '') url.password = '***';
    throw inputError(
      'VALIDATION_FAILED',
      `The URL "${url.href}" carries a user name or password.`,
      "Send credentials in a header instead, such as --header 'Authorization: Basic …'.",
      { url: url.href },
    );
  }
  return url.href;
}

export function checkMethod(text: string): string {
  const method = text.trim().toUpperCase();
  if (!METHOD.test(method))
    throw inputError('VALIDATION_FAILED', `Invalid HTTP method "${text}".`, METHOD_HINT, { method: text });
  if (UNSENDABLE_METHODS.has(method)) {
    throw inputError('VALIDATION_FAILED', `The HTTP method ${method} cannot be sent by a job.`, METHOD_HINT, {
      method,
    });
  }
  return method;
}

/** The method when none is given: a payload is sent as a body, which GET cannot carry. */
export function defaultMethod(payload: JobDefinition['payload']): string {
  return payload === null ? 'GET' : 'POST';
}

/** GET and HEAD requests have no body, so a job that sends its payload needs another method. */
export function checkBodyAllowed(method: string, payload: JobDefinition['payload']): void {
  if (payload === null || !BODYLESS_METHODS.has(method)) return;
  throw inputError(
    'VALIDATION_FAILED',
    `A ${method} request cannot carry the payload as its body.`,
    'Give --method POST (or PUT, PATCH), or remove the payload.',
    { method },
  );
}

/** Parses `Name: value` lines into a record; names keep their spelling but must differ ignoring case. */
export function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const seen = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    if (colon === -1 || !TOKEN.test(name)) {
      const problem = colon === -1 ? 'has no ":"' : 'does not start with a header name';
      throw inputError('VALIDATION_FAILED', `The header "${line}" ${problem}.`, HEADER_HINT, {
        header: line,
      });
    }
    checkHeaderName(name);
    if (!FIELD_VALUE.test(value)) {
      throw inputError(
        'VALIDATION_FAILED',
        `The value of header ${name} holds a line break, control character or non-Latin-1 character.`,
        'Header values are one line of text; percent-encode or base64 anything else.',
        { header: name },
      );
    }
    const key = name.toLowerCase();
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw inputError(
        'VALIDATION_FAILED',
        `The header ${name} is given twice${earlier === name ? '' : ` (also as ${earlier})`}.`,
        "Give each header once; join several values with a comma, such as --header 'Accept: a, b'.",
        { header: name },
      );
    }
    seen.set(key, name);
    headers[name] = value;
  }
  return headers;
}

function checkHeaderName(name: string): void {
  const key = name.toLowerCase();
  if (SCHED_HEADERS.has(key)) {
    throw inputError(
      'VALIDATION_FAILED',
      `The header ${name} is set by sched on every request.`,
      'Drop it: sched sends Idempotency-Key (the run id) and X-Sched-Fence (the daemon fence) itself.',
      { header: name },
    );
  }
  if (TRANSPORT_HEADERS.has(key)) {
    throw inputError(
      'VALIDATION_FAILED',
      `The header ${name} is set by the HTTP client for each request.`,
      'Drop it; framing and connection headers are computed per request.',
      { header: name },
    );
  }
}

/** `2xx` (any class 1xx to 5xx) or a comma-separated list of codes from 100 to 599. */
export function parseExpect(text: string): ExpectedStatus {
  const trimmed = text.trim().toLowerCase();
  const statusClass = /^([1-5])xx$/.exec(trimmed);
  if (statusClass) return { kind: 'class', hundreds: Number(statusClass[1]) };
  const codes: number[] = [];
  for (const part of trimmed.split(',').map((code) => code.trim())) {
    const code = /^\d{3}$/.test(part) ? Number(part) : NaN;
    if (!(code >= 100 && code <= 599)) {
      const what = part === '' ? 'an empty entry' : `"${part}", which is not a status code from 100 to 599`;
      throw inputError('VALIDATION_FAILED', `The expected status "${text}" has ${what}.`, EXPECT_HINT, {
        expect: text,
      });
    }
    if (!codes.includes(code)) codes.push(code);
  }
  return { kind: 'codes', codes };
}

export function checkBreakerFailures(count: number): number {
  if (Number.isInteger(count) && count >= 1 && count <= 1000) return count;
  throw inputError(
    'VALIDATION_FAILED',
    `The breaker threshold ${count} is not a whole number from 1 to 1000.`,
    'Give --breaker-failures N: how many failures in a row open the breaker (default 5).',
    { value: count },
  );
}

export function parseBreakerCooldown(text: string): number {
  return parseBoundedDuration(text, {
    label: 'Breaker cool-down',
    allowZero: false,
    hint: 'Give --breaker-cooldown as a duration such as 30s or 5m: how long an open breaker waits before trying again.',
  });
}

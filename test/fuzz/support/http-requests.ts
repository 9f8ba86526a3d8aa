import fc from 'fast-check';
import { JOB_NAME_PATTERN } from '../../../src/core/job.js';
import { GHOST } from './socket-messages.js';

/**
 * The one job the fuzzed daemon holds. No request built here can change it or add another: paths never
 * name it, and a body that would add a job names it (NAME_TAKEN, found only at the insert, after every
 * other check) or a name that is not valid.
 */
export const KEPT = 'keep';

/** One HTTP/1.1 request as written on the wire, and how long to wait for its answer. */
export interface HttpRequestModel {
  method: string;
  target: string;
  version: string;
  headers: [string, string][];
  body: Buffer;
  /** The request says it has more body than it sends: the server waits for the rest, so wait briefly. */
  stalls: boolean;
}

export function renderRequest(model: HttpRequestModel): Buffer {
  const head = `${model.method} ${model.target} ${model.version}\r\n${model.headers
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'utf8'), model.body]);
}

const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};
const namesNoKeptJob = (text: string): boolean => !decoded(text).includes(KEPT);

/** Percent-encoding as encodeURIComponent does it, of any text (a lone surrogate goes as U+FFFD). */
const encoded = (text: string): string =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-_.!~*'()]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** Text that is awkward in a path, a query, a header or a field: encodings, controls, sizes. */
const awkwardText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '%',
    '%%',
    '%E0%A4%A',
    '%zz',
    '%00',
    '%2F..%2F',
    '..',
    '.',
    'a'.repeat(600),
    '☃',
    '"',
    '__proto__',
    'constructor',
    '-1',
    '1e309',
    '99999999999999999999',
  ),
);

/** JSON values of every kind, including awkward ones (prototype keys, huge numbers, nesting). */
const awkwardJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    JSON.parse('{"__proto__":{"polluted":true}}'),
    { constructor: { prototype: { polluted: true } } },
    { toString: 1, valueOf: 'x' },
    1e308,
    -0,
    Number.MAX_SAFE_INTEGER + 2,
    '',
    '\u0000',
  ),
);

/** A path segment naming a job or run that does not exist, encoded well or badly. */
const missingRef: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 3, arbitrary: fc.constant(GHOST) },
    { weight: 3, arbitrary: awkwardText.map(encoded) },
    { weight: 2, arbitrary: awkwardText.map((text) => text.replace(/[\s/?#]/g, '')) },
  )
  .filter(namesNoKeptJob);

/**
 * Socket methods behind `POST /v1/call/{method}` that a body from here cannot make change anything: reads,
 * and writes that need a ref (absent from these bodies, or a job that does not exist) or a job's input
 * (never one that can be added). Methods the API does not take, and one no protocol has, are refused.
 */
const CALLED_METHODS = [
  ...['daemon.status', 'job.list', 'job.get', 'run.list', 'run.get', 'audit.list', 'job.occurrences'],
  ...['cluster.status', 'token.list', 'job.add', 'job.update', 'job.cancel', 'job.pause', 'job.resume'],
  ...['job.trigger', 'run.kill', 'run.retry', 'events.subscribe', 'daemon.stop', 'store.backup', 'no.such'],
];

const path: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...CALLED_METHODS).map((method) => `/v1/call/${method}`),
  fc.constantFrom('/v1/jobs', '/v1/health', '/v1/cluster', '/v1/events', '/v1/openapi.json'),
  missingRef.map((ref) => `/v1/jobs/${ref}`),
  fc
    .tuple(
      missingRef,
      fc.oneof(fc.constantFrom('pause', 'resume', 'trigger', 'history', 'occurrences'), missingRef),
    )
    .map(([ref, action]) => `/v1/jobs/${ref}/${action}`),
  missingRef.map((id) => `/v1/runs/${id}`),
  fc
    .tuple(missingRef, fc.constantFrom('kill', 'retry', 'logs'))
    .map(([id, action]) => `/v1/runs/${id}/${action}`),
  fc
    .array(fc.oneof(fc.constantFrom('v1', 'jobs', 'runs', ''), missingRef), { maxLength: 6 })
    .map((segments) => `/${segments.join('/')}`),
  fc.constantFrom(
    '*',
    'http://elsewhere/v1/jobs',
    '//v1//jobs',
    '/v1/../v1/jobs',
    '/V1/JOBS',
    '/v1/jobs/',
    '/v1/jobs#x',
  ),
);

const queryValue = fc.oneof(
  fc.constantFrom('active', 'paused,done', '10', '0', '-1', '1.5', '1e3', 'true', 'team=web', 'a=b,c', GHOST),
  awkwardText.map(encoded),
  awkwardText.map((text) => text.replace(/[\s#]/g, '')).filter(namesNoKeptJob),
);
const query: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.constantFrom(
        'limit',
        'cursor',
        'state',
        'label',
        'owner',
        'upcoming',
        'force',
        'now',
        'types',
        'runId',
        'since',
        '__proto__',
        'x',
      ),
      queryValue,
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([key, value]) => `${key}=${value}`).join('&')}`));

/** Text that names no job that could be added: the kept job's name, or a name no job may have. */
const nameNotAddable: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(KEPT) },
  { weight: 1, arbitrary: awkwardText.filter((text) => !JOB_NAME_PATTERN.test(text)) },
  { weight: 1, arbitrary: awkwardJson.filter((value) => typeof value !== 'string') },
);

/** A job input of the right shape or nearly: fields of the right kind with odd values, or of the wrong kind. */
const jobInput = fc.record(
  {
    name: nameNotAddable,
    every: fc.oneof(fc.constantFrom('1h', '0s', '-1m', '1000000y', 'often'), awkwardJson),
    cron: fc.oneof(fc.constantFrom('0 3 * * *', '* * * * * * *', '61 * * * *', '@hourly'), awkwardJson),
    at: fc.oneof(fc.constantFrom('2099-01-01T00:00:00Z', 'tomorrow', '1970-01-01T00:00:00Z'), awkwardJson),
    timezone: fc.oneof(fc.constantFrom('Europe/Berlin', 'Mars/Olympus', ''), awkwardJson),
    argv: fc.oneof(fc.constant(['true']), fc.array(awkwardText, { maxLength: 3 }), awkwardJson),
    shell: fc.oneof(fc.constant('echo hi'), awkwardJson),
    http: fc.oneof(fc.constantFrom('http://127.0.0.1:9/x', 'ftp://x', 'not a url'), awkwardJson),
    headers: fc.oneof(fc.array(awkwardText, { maxLength: 3 }), awkwardJson),
    retries: fc.oneof(fc.integer({ min: -5, max: 1_000_000 }), awkwardJson),
    payload: fc.oneof(fc.constantFrom('{"a":1}', '[', '"x"'), awkwardJson),
    labels: fc.oneof(fc.dictionary(awkwardText, awkwardText, { maxKeys: 3 }), awkwardJson),
    env: fc.oneof(fc.dictionary(awkwardText, awkwardText, { maxKeys: 3 }), awkwardJson),
    after: fc.oneof(fc.constant([KEPT]), fc.array(awkwardText, { maxLength: 2 }), awkwardJson),
    misfire: fc.oneof(fc.constantFrom('skip', 'count:0', 'count:-1'), awkwardJson),
    timeout: fc.oneof(fc.constantFrom('1s', '0s', 'forever'), awkwardJson),
    clear: fc.oneof(fc.constant(['timeout', 'payload']), awkwardJson),
  },
  { requiredKeys: ['name'] },
);

const deepNesting = fc
  .tuple(fc.constantFrom(['[', ']'], ['{"a":', '}']), fc.integer({ min: 1, max: 150_000 }), fc.boolean())
  .map(([[open, close], depth, closed]) => open.repeat(depth) + (closed ? `1${close.repeat(depth)}` : ''))
  .filter((text) => text.length <= 900_000);

/** JSON text: a job's body of the right shape or nearly, anything else, deep nesting, huge strings. */
const jsonText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ input: jobInput, paused: awkwardJson }, { requiredKeys: ['input'] })
      .map((value) => JSON.stringify(value)),
  },
  { weight: 2, arbitrary: jobInput.map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: awkwardJson.map((value) => JSON.stringify(value) ?? 'null') },
  { weight: 1, arbitrary: deepNesting },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 10_000, max: 1_100_000 })
      .map((size) => JSON.stringify({ input: { name: KEPT, every: '1h', argv: ['x'.repeat(size)] } })),
  },
);

const body: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 6, arbitrary: jsonText.map((text) => Buffer.from(text, 'utf8')) },
  // Invalid JSON: cut short, or bytes of any kind.
  {
    weight: 2,
    arbitrary: jsonText.chain((text) =>
      fc.nat(text.length).map((cut) => Buffer.from(text.slice(0, cut), 'utf8')),
    ),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/json;;',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  ';;',
  '',
);

function authorizations(token: string): fc.Arbitrary<string | null> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(`Bearer ${token}`) },
    { weight: 1, arbitrary: fc.constant(null) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constantFrom(
          '',
          'Bearer',
          'Bearer ',
          `Bearer ${token}x`,
          `bearer ${token}`,
          `Bearer ${token}, Bearer x`,
        ),
        fc.constantFrom('Basic dXNlcjpwYXNz', `Bearer ${'a'.repeat(8_000)}`, `Token ${token}`),
        awkwardText.map((text) => `Bearer ${text}`),
      ),
    },
  );
}

/** How the body's length is told: truly, not at all, chunked, or a lie of either direction. */
type Framing =
  'exact' | 'none' | 'shorter' | 'longer' | 'garbage' | 'twice' | 'chunked' | 'bad-chunks' | 'both';
const framing = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Framing>('exact') },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Framing>(
      'none',
      'shorter',
      'longer',
      'garbage',
      'twice',
      'chunked',
      'bad-chunks',
      'both',
    ),
  },
);

function framed(kind: Framing, body: Buffer, lie: number): { headers: [string, string][]; body: Buffer } {
  const length = String(body.length);
  switch (kind) {
    case 'exact':
      return { headers: [['Content-Length', length]], body };
    case 'none':
      return { headers: [], body };
    case 'shorter':
      return { headers: [['Content-Length', String(Math.max(0, body.length - lie))]], body };
    case 'longer':
      return { headers: [['Content-Length', String(body.length + lie)]], body };
    case 'garbage':
      return {
        headers: [['Content-Length', ['-1', 'abc', '1e3', ' 5', '0x10', '99999999999999999999'][lie % 6]!]],
        body,
      };
    case 'twice':
      return {
        headers: [
          ['Content-Length', length],
          ['Content-Length', String(body.length + 1)],
        ],
        body,
      };
    case 'chunked':
      return { headers: [['Transfer-Encoding', 'chunked']], body: chunked(body, 'ok') };
    case 'bad-chunks':
      return { headers: [['Transfer-Encoding', 'chunked']], body: chunked(body, 'bad') };
    case 'both':
      return {
        headers: [
          ['Content-Length', length],
          ['Transfer-Encoding', 'chunked'],
        ],
        body: chunked(body, 'ok'),
      };
  }
}

function chunked(body: Buffer, kind: 'ok' | 'bad'): Buffer {
  const size = kind === 'ok' ? body.length.toString(16) : 'zz';
  return Buffer.concat([Buffer.from(`${size}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
}

/** Headers besides the framing and the token: the ones the API reads, with garbage, and others. */
const otherHeaders: fc.Arbitrary<[string, string][]> = fc
  .record(
    {
      contentType,
      ifMatch: fc.oneof(
        fc.constantFrom('"1"', 'W/"1"', '*', '"1", "2"', '99999999999999999999', '"-1"'),
        awkwardText,
      ),
      idempotencyKey: fc.oneof(fc.constantFrom('deploy-1', '', 'k'.repeat(300)), awkwardText),
      lastEventId: fc.oneof(fc.constantFrom('0', '1', '-1', '999999999999999999'), awkwardText),
      expect: fc.constant('100-continue'),
      accept: fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/html'),
      extra: fc.tuple(awkwardText, awkwardText),
    },
    { requiredKeys: [] },
  )
  .map((fields) => {
    const headers: [string, string][] = [];
    if (fields.contentType !== undefined) headers.push(['Content-Type', fields.contentType]);
    if (fields.ifMatch !== undefined) headers.push(['If-Match', fields.ifMatch]);
    if (fields.idempotencyKey !== undefined) headers.push(['Idempotency-Key', fields.idempotencyKey]);
    if (fields.lastEventId !== undefined) headers.push(['Last-Event-ID', fields.lastEventId]);
    if (fields.expect !== undefined) headers.push(['Expect', fields.expect]);
    if (fields.accept !== undefined) headers.push(['Accept', fields.accept]);
    if (fields.extra !== undefined) headers.push([fields.extra[0] || 'X-Empty', fields.extra[1]]);
    return headers;
  });

/** A request to the API that may be wrong in any part, sent with `token` most of the time. */
export function httpRequests(token: string): fc.Arbitrary<HttpRequestModel> {
  return fc
    .record({
      method: fc.oneof(
        {
          weight: 10,
          arbitrary: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'HEAD', 'PUT', 'OPTIONS'),
        },
        { weight: 1, arbitrary: fc.constantFrom('get', 'FOO', 'G\tET', 'CONNECT', 'TRACE') },
      ),
      target: fc.tuple(path, query).map(([where, search]) => `${where}${search}`),
      version: fc.oneof(
        { weight: 20, arbitrary: fc.constant('HTTP/1.1') },
        { weight: 1, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTX/1.1', '') },
      ),
      host: fc.oneof(
        { weight: 12, arbitrary: fc.constant(['Host: 127.0.0.1']) },
        { weight: 1, arbitrary: fc.constantFrom([], ['Host: a', 'Host: b']) },
      ),
      authorization: authorizations(token),
      body: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: body }),
      framing,
      lie: fc.integer({ min: 1, max: 64 }),
      headers: otherHeaders,
      connection: fc.constantFrom('close', 'close', 'close', 'keep-alive', null),
    })
    .map((parts) => {
      const payload = parts.body === null ? null : framed(parts.framing, parts.body, parts.lie);
      const headers: [string, string][] = [
        ...parts.host.map((line) => line.split(': ') as [string, string]),
        ...(parts.authorization === null ? [] : [['Authorization', parts.authorization] as [string, string]]),
        ...parts.headers,
        ...(payload?.headers ?? []),
        ...(parts.connection === null ? [] : [['Connection', parts.connection] as [string, string]]),
      ];
      return {
        method: parts.method,
        target: parts.target,
        version: parts.version,
        headers,
        body: payload?.body ?? Buffer.alloc(0),
        stalls: payload !== null && parts.framing === 'longer',
      };
    });
}

/**
 * A request with a body to a route that reads one, well framed and with `token`, so it reaches the body's
 * checks and the daemon's: none of these can succeed.
 */
export function bodyRequests(token: string): fc.Arbitrary<HttpRequestModel> {
  return fc
    .record({
      route: fc.constantFrom(
        { method: 'POST', target: '/v1/jobs' },
        { method: 'PATCH', target: `/v1/jobs/${GHOST}` },
        { method: 'POST', target: `/v1/jobs/${GHOST}/trigger` },
        { method: 'POST', target: '/v1/call/job.add' },
        { method: 'POST', target: '/v1/call/job.update' },
      ),
      body,
      contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8'),
      headers: otherHeaders.map((headers) => headers.filter(([name]) => name !== 'Content-Type')),
    })
    .map(({ route: { method, target }, body: bytes, contentType, headers }) => ({
      method,
      target,
      version: 'HTTP/1.1',
      headers: [
        ['Host', '127.0.0.1'],
        ['Authorization', `Bearer ${token}`],
        ['Content-Type', contentType],
        ...headers,
        ['Content-Length', String(bytes.length)],
        ['Connection', 'close'],
      ],
      body: bytes,
      stalls: false,
    }));
}

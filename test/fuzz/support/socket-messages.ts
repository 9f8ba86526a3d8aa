import fc from 'fast-check';
import { requestSchemas, type Method } from '../../../src/ipc/protocol.js';

const METHODS = Object.keys(requestSchemas) as Method[];

/** Methods that only read: any params may be valid. */
const READS: readonly Method[] = [
  'daemon.status',
  'job.list',
  'job.get',
  'run.list',
  'run.get',
  'audit.list',
  'job.why',
  'job.occurrences',
  'cluster.status',
];

/**
 * A job no test creates: a write request naming it (or, by a mutated byte, a name close to it) is refused, so
 * any message built here leaves the store as it was, however it is read.
 */
export const GHOST = 'ghost-job';

/**
 * Methods that act on the daemon itself rather than on a job, so a well-formed one changes what is stored
 * whatever the params (a key rotation re-seals secrets and is audited; a backup writes a file): they have
 * tests of their own. A CI run drew a `key.rotate` and found it in the audit after the flood.
 */
const DAEMON_WIDE: readonly Method[] = [
  'daemon.stop',
  'key.rotate',
  'store.backup',
  'token.create',
  'token.revoke',
  'notify.test',
  'cluster.keys.install',
  'cluster.keys.use',
  'cluster.keys.remove',
  'cluster.join',
  'cluster.leave',
];

const WRITES = METHODS.filter((method) => !READS.includes(method) && !DAEMON_WIDE.includes(method));

/** JSON values of every kind, including ones that are awkward to handle: prototype keys, huge numbers, nesting. */
const awkwardJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.constantFrom(
    { __proto__: { polluted: true } },
    JSON.parse('{"__proto__":{"polluted":true}}'),
    { constructor: { prototype: { polluted: true } } },
    { toString: 1, valueOf: 'x' },
    { ref: { toString: 0 } },
    1e308,
    -0,
    Number.MAX_SAFE_INTEGER + 2,
    '',
    '\u0000',
    '\ud800',
  ),
);

/** Params of the right shape for a read, with each field sometimes of the wrong type. */
const readParams: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    {
      ref: fc.oneof(fc.constantFrom('keep', GHOST, ''), awkwardJson),
      id: fc.oneof(fc.constantFrom('01', GHOST), awkwardJson),
      limit: fc.oneof(fc.integer({ min: -5, max: 2_000 }), awkwardJson),
      cursor: awkwardJson,
      upcoming: fc.oneof(fc.integer({ min: -1, max: 200 }), awkwardJson),
      states: fc.oneof(fc.array(fc.constantFrom('active', 'paused', 'x')), awkwardJson),
      at: awkwardJson,
    },
    { requiredKeys: [] },
  ),
  awkwardJson,
);

/** Params for a write: they name no job that exists, or are of the wrong shape, so no write can succeed. */
const writeParams: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    {
      ref: fc.oneof(
        fc.constant(GHOST),
        awkwardJson.filter((value) => typeof value !== 'string'),
      ),
      id: fc.oneof(
        fc.constant(GHOST),
        awkwardJson.filter((value) => typeof value !== 'string'),
      ),
      jobRef: fc.oneof(
        fc.constant(GHOST),
        awkwardJson.filter((value) => typeof value !== 'string'),
      ),
      since: awkwardJson,
      input: fc.oneof(
        awkwardJson,
        // Everything a job needs but a target or schedule of the wrong type.
        fc.record({
          name: fc.string(),
          every: awkwardJson,
          argv: awkwardJson.filter((value) => !Array.isArray(value)),
        }),
      ),
      patch: awkwardJson,
      idempotencyKey: awkwardJson,
      force: awkwardJson,
    },
    { requiredKeys: [] },
  ),
  awkwardJson.filter((value) => typeof value !== 'object' || value === null || Array.isArray(value)),
);

const requestId = fc.oneof(
  { weight: 4, arbitrary: fc.nat() },
  { weight: 1, arbitrary: awkwardJson },
  { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, Number.MAX_SAFE_INTEGER + 1, 'abc', '9'.repeat(200)) },
);

/** A request to one of `methods`, its kind sometimes wrong and its id or params sometimes left out. */
const requestTo = (methods: readonly Method[], params: fc.Arbitrary<unknown>) =>
  fc.record(
    {
      kind: fc.oneof({ weight: 5, arbitrary: fc.constant('request') }, { weight: 1, arbitrary: awkwardJson }),
      id: requestId,
      method: fc.constantFrom(...methods),
      params,
    },
    { requiredKeys: ['kind', 'method'] },
  );

/** A request message (`data`): real methods and made-up ones, right and wrong ids, kinds and params. */
const requestMessage: fc.Arbitrary<unknown> = fc.oneof(
  requestTo(READS, readParams),
  requestTo(WRITES, writeParams),
  fc.record({
    kind: fc.constant('request'),
    id: requestId,
    method: fc.oneof(
      fc.constantFrom(
        '__proto__',
        'constructor',
        'toString',
        'hasOwnProperty',
        'job',
        'job.',
        '.list',
        'JOB.LIST',
      ),
      fc.string({ maxLength: 120 }),
      awkwardJson,
    ),
    params: awkwardJson,
  }),
);

/** The JSON text of one frame: our envelope around a message, or an envelope that is wrong in itself. */
const frameText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: requestMessage.map((data) => JSON.stringify({ type: 'sched', data })) },
  { weight: 1, arbitrary: awkwardJson.map((data) => JSON.stringify({ type: 'sched', data })) },
  {
    weight: 1,
    arbitrary: fc.tuple(awkwardJson, requestMessage).map(([type, data]) => JSON.stringify({ type, data })),
  },
  { weight: 1, arbitrary: awkwardJson.map((value) => JSON.stringify(value) ?? 'null') },
);

const DELIMITER = Buffer.from([0x0c]);

/** Byte-level damage done to well-formed frames: what a broken or hostile client might really send. */
type Damage =
  | { kind: 'none' }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'overwrite'; at: number; bytes: Uint8Array }
  | { kind: 'no-delimiter' };

const damage: fc.Arbitrary<Damage> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Damage>({ kind: 'none' }) },
  { weight: 1, arbitrary: fc.nat().map((at): Damage => ({ kind: 'truncate', at })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 8 }))
      .map(([at, bytes]): Damage => ({ kind: 'insert', at, bytes })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.nat(),
        fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x0c], [0x00], [0xf4, 0x90]),
      )
      .map(([at, bytes]): Damage => ({ kind: 'overwrite', at, bytes: Uint8Array.from(bytes) })),
  },
  { weight: 1, arbitrary: fc.constant<Damage>({ kind: 'no-delimiter' }) },
);

function damaged(text: string, harm: Damage): Buffer {
  const body = Buffer.from(text, 'utf8');
  const whole = Buffer.concat([body, DELIMITER]);
  const at = 'at' in harm ? harm.at % whole.length : 0;
  switch (harm.kind) {
    case 'none':
      return whole;
    case 'truncate':
      return whole.subarray(0, at);
    case 'insert':
      return Buffer.concat([whole.subarray(0, at), harm.bytes, whole.subarray(at)]);
    case 'overwrite':
      return Buffer.concat([whole.subarray(0, at), harm.bytes, whole.subarray(at + harm.bytes.length)]);
    case 'no-delimiter':
      return body;
  }
}

/** Values far bigger or deeper than any real request. */
const extreme: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.integer({ min: 100, max: 20_000 }), fc.constantFrom('[', '{"a":')).map(([depth, open]) => {
    const close = open === '[' ? ']' : '}';
    return `{"type":"sched","data":{"kind":"request","id":1,"method":"job.get","params":{"ref":${open.repeat(depth)}1${close.repeat(depth)}}}}`;
  }),
  fc
    .integer({ min: 1_900_000, max: 2_300_000 })
    .map(
      (size) =>
        `{"type":"sched","data":{"kind":"request","id":1,"method":"job.get","params":{"ref":"${'x'.repeat(size)}"}}}`,
    ),
);

/** The bytes one client writes on its own connection: one or more frames, some damaged, sometimes huge. */
export const clientBytes: fc.Arbitrary<Buffer> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc
      .array(fc.tuple(frameText, damage), { minLength: 1, maxLength: 3 })
      .map((frames) => Buffer.concat(frames.map(([text, harm]) => damaged(text, harm)))),
  },
  { weight: 1, arbitrary: fc.tuple(extreme, damage).map(([text, harm]) => damaged(text, harm)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
);

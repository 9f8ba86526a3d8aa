import { inputError } from './input-error.js';
import { MAX_PAYLOAD_BYTES, MAX_PAYLOAD_DEPTH, type JobDefinition } from './job.js';
import { nestsDeeperThan } from './json-depth.js';

/** Parses the payload text as JSON, refusing more than 1 MiB and saying where broken JSON goes wrong. */
export function parsePayload(text: string): JobDefinition['payload'] {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_PAYLOAD_BYTES) {
    throw inputError(
      'PAYLOAD_TOO_LARGE',
      `The payload is ${bytes} bytes; the limit is ${MAX_PAYLOAD_BYTES} bytes (1 MiB).`,
      'Keep large data in a file and pass its path in the payload.',
      { bytes, limit: MAX_PAYLOAD_BYTES },
    );
  }
  let payload: JobDefinition['payload'];
  try {
    payload = JSON.parse(text) as JobDefinition['payload'];
  } catch {
    const offset = jsonErrorOffset(text);
    const before = text.slice(0, offset);
    const where =
      offset >= text.length
        ? 'it ends too early'
        : `unexpected ${JSON.stringify(text.slice(offset, offset + 10))} at line ${before.split('\n').length}, column ${offset - before.lastIndexOf('\n')}`;
    throw inputError(
      'VALIDATION_FAILED',
      `The payload is not valid JSON: ${where}.`,
      'Pass JSON text, such as \'{"table": "users"}\', quoted for your shell.',
      { offset },
    );
  }
  if (nestsDeeperThan(text, MAX_PAYLOAD_DEPTH)) {
    throw inputError(
      'VALIDATION_FAILED',
      `The payload nests objects and arrays more than ${MAX_PAYLOAD_DEPTH} levels deep.`,
      'Flatten the payload, or keep deep data in a file and pass its path in the payload.',
      { limit: MAX_PAYLOAD_DEPTH },
    );
  }
  return payload;
}

// JSON strings may not hold raw control characters, so the token must refuse them.
const JSON_TOKEN =
  // eslint-disable-next-line no-control-regex
  /\s*(?:([{}[\]:,])|("(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null))/y;

/**
 * Where JSON.parse gave up: the offset of the first character that cannot continue valid JSON, or the text's
 * length when it ends too early. Node 20's own messages quote the whole text instead of giving a position.
 * Iterative, so a deeply nested payload cannot overflow the stack.
 */
function jsonErrorOffset(text: string): number {
  const open: string[] = [];
  let expecting: 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'commaOrClose' | 'nothing' =
    'value';
  for (let offset = 0; ; offset = JSON_TOKEN.lastIndex) {
    JSON_TOKEN.lastIndex = offset;
    const match = JSON_TOKEN.exec(text);
    if (match === null) return offset + (/^\s*/.exec(text.slice(offset))?.[0].length ?? 0);
    const [whole, punctuation, scalar = ''] = match;
    const start = offset + whole.length - (punctuation ?? scalar).length;
    const closes = open.at(-1) === '{' ? '}' : ']';
    if (
      (expecting === 'valueOrClose' && punctuation === ']') ||
      (expecting === 'keyOrClose' && punctuation === '}') ||
      (expecting === 'commaOrClose' && punctuation === closes)
    ) {
      open.pop();
    } else if (expecting === 'value' || expecting === 'valueOrClose') {
      if (punctuation === '{' || punctuation === '[') {
        open.push(punctuation);
        expecting = punctuation === '{' ? 'keyOrClose' : 'valueOrClose';
        continue;
      }
      if (punctuation !== undefined) return start;
    } else if (expecting === 'key' || expecting === 'keyOrClose') {
      if (!scalar.startsWith('"')) return start;
      expecting = 'colon';
      continue;
    } else if (expecting === 'colon' && punctuation === ':') {
      expecting = 'value';
      continue;
    } else if (expecting === 'commaOrClose' && punctuation === ',') {
      expecting = closes === '}' ? 'key' : 'value';
      continue;
    } else {
      return start;
    }
    expecting = open.length > 0 ? 'commaOrClose' : 'nothing';
  }
}

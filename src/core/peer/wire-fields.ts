import { z } from 'zod';
import { nestsDeeperThan } from '../json-depth.js';

/**
 * A member or voter id as it crosses the wire: printable ASCII without spaces (a host:port, a name), so
 * the JSON of a message is as many bytes as characters and a datagram's size is known before sending.
 */
export const wireId = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'an id is 1 to 255 printable ASCII characters');
/** Terms, indexes, sequence numbers, incarnations: whole, finite, never negative. */
export const wireCount = z.int().min(0);

const MAX_DEPTH = 32;
/** The largest stream frame's body: a batch of entries larger than this is split, a larger message sent in parts. */
export const MAX_STREAM_FRAME = 4 * 1024 * 1024;
/** The largest Raft message (a snapshot) sent in parts over the streams and put together again. */
export const MAX_RAFT_MESSAGE = 256 * 1024 * 1024;

export type WireResult<Message> = { ok: true; message: Message } | { ok: false; reason: string };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads one message a peer sent: UTF-8 JSON of at most `maxBytes`, nested at most 32 deep, then the
 * schema. Anything else is refused with a reason (for a log line and a counter) and never reaches a state
 * machine; invalid UTF-8 is refused, not repaired, so what is validated is what was sent.
 */
export function decodeWire<Message>(
  bytes: Uint8Array,
  schema: z.ZodType<Message>,
  maxBytes: number,
): WireResult<Message> {
  if (bytes.length > maxBytes) return { ok: false, reason: `longer than ${maxBytes} bytes` };
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'not UTF-8' };
  }
  if (nestsDeeperThan(text, MAX_DEPTH)) return { ok: false, reason: `nested deeper than ${MAX_DEPTH}` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length === 0 ? 'message' : issue.path.join('.');
  return { ok: false, reason: `${where}: ${issue.message}`.slice(0, 300) };
}

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

export type WireResult<Message> = { ok: true; message: Message } | { ok: false; reason: string };

/**
 * Reads one message a peer sent: JSON no longer than `maxChars` nor deeper than 32, then the schema.
 * Anything else is refused with a reason (for a log line and a counter) and never reaches a state machine.
 */
export function decodeWire<Message>(
  text: string,
  schema: z.ZodType<Message>,
  maxChars: number,
): WireResult<Message> {
  if (text.length > maxChars) return { ok: false, reason: `longer than ${maxChars} characters` };
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

import { z } from 'zod';
import { decodeWire, MAX_STREAM_FRAME, wireCount, wireId, type WireResult } from '../peer/wire-fields.js';
import type { MemberUpdate, StateExchange, SwimMessage } from './swim-messages.js';

/**
 * The largest SWIM datagram sealed, in bytes: under the 1,500-byte Ethernet MTU less IP and UDP headers,
 * so a datagram is never fragmented (memberlist's UDPBufferSize is 1,400 for the same reason).
 */
export const MAX_SWIM_DATAGRAM = 1_400;
/** More updates than this on one message is no sender of ours: a member piggybacks a handful. */
const MAX_UPDATES = 64;
/** A view larger than this is no cluster sched is built for; a state exchange is refused beyond it. */
const MAX_MEMBERS = 4_096;
/** Versions of the peer protocol go up by one a feature: a larger one is no member's. */
const MAX_PROTOCOL_VERSION = 65_535;

const memberUpdate = z.object({
  id: wireId,
  incarnation: wireCount,
  state: z.enum(['alive', 'suspect', 'dead']),
  suspectedBy: wireId.optional(),
  version: z.int().min(1).max(MAX_PROTOCOL_VERSION).optional(),
});
const envelope = {
  from: wireId,
  to: wireId,
  seq: wireCount,
  updates: z.array(memberUpdate).max(MAX_UPDATES),
  load: wireCount.optional(),
};

const swimMessage: z.ZodType<SwimMessage> = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ping'), ...envelope }),
  z.object({ type: z.literal('ack'), ...envelope }),
  z.object({ type: z.literal('ping-req'), ...envelope, target: wireId }),
  z.object({ type: z.literal('nack'), ...envelope }),
]);

const stateExchange: z.ZodType<StateExchange> = z.object({
  type: z.literal('state'),
  from: wireId,
  to: wireId,
  reply: z.boolean(),
  members: z.array(memberUpdate).max(MAX_MEMBERS),
  load: wireCount.optional(),
});

const utf8 = new TextEncoder();

/**
 * The UTF-8 JSON of `message` in at most `maxBytes`, trimming piggybacked updates from the end to fit (the way
 * memberlist fills a packet with broadcasts until it is full): the node puts its own incarnation and what
 * it must tell this receiver first, the gossip after it. Trimmed gossip is not resent: each update is
 * piggybacked on several messages, and one spent on a full datagram is what SWIM's loss tolerance covers.
 * Null when the message does not fit even without updates.
 */
export function encodeSwimMessage(message: SwimMessage, maxBytes: number): Uint8Array | null {
  const bare = utf8.encode(JSON.stringify({ ...message, updates: [] })).length;
  let size = bare;
  const kept: MemberUpdate[] = [];
  for (const update of message.updates.slice(0, MAX_UPDATES)) {
    const more = utf8.encode(JSON.stringify(update)).length + (kept.length > 0 ? 1 : 0);
    if (size + more > maxBytes) break;
    size += more;
    kept.push(update);
  }
  if (bare > maxBytes) return null;
  return utf8.encode(JSON.stringify({ ...message, updates: kept }));
}

export function decodeSwimMessage(bytes: Uint8Array): WireResult<SwimMessage> {
  return decodeWire(bytes, swimMessage, MAX_SWIM_DATAGRAM);
}

export function encodeStateExchange(exchange: StateExchange): Uint8Array {
  return utf8.encode(JSON.stringify(exchange));
}

export function decodeStateExchange(bytes: Uint8Array): WireResult<StateExchange> {
  return decodeWire(bytes, stateExchange, MAX_STREAM_FRAME);
}

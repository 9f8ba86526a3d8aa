import { z } from 'zod';
import { SchedError } from '../core/errors.js';
import type { RequestMessage, ResponseMessage } from './protocol.js';

const requestIdSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Every request a client sends, before its method's own params schema is applied by the router. */
const requestMessageSchema = z.object({
  kind: z.literal('request'),
  id: requestIdSchema,
  method: z.string().min(1).max(100),
  params: z.unknown(),
});

/** An id a reply may carry back although the request around it is malformed: a plain scalar, never a structure. */
const echoableIdSchema = z.union([requestIdSchema, z.string().max(100)]);

export type ReadRequest =
  | { ok: true; request: RequestMessage }
  /** `reply` is null when the message has no id to answer to: then its connection is closed. */
  | { ok: false; reply: Extract<ResponseMessage, { ok: false }> | null };

/**
 * Checks a message from the socket before anything acts on it. A malformed one is answered with
 * VALIDATION_FAILED when it carries an id that can be echoed safely.
 */
export function readRequest(message: unknown): ReadRequest {
  const parsed = requestMessageSchema.safeParse(message);
  if (parsed.success) return { ok: true, request: { ...parsed.data, params: parsed.data.params } };
  const id = echoableIdSchema.safeParse(idOf(message));
  if (!id.success) return { ok: false, reply: null };
  const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  const first = issues[0]!;
  const error = new SchedError(
    'VALIDATION_FAILED',
    `Invalid request message: ${first.path || 'message'}: ${first.message}.`,
    {
      hint: 'A request is {"kind":"request","id":N,"method":"…","params":{…}}; the client and daemon versions may differ.',
      details: { issues },
    },
  );
  return { ok: false, reply: { kind: 'response', id: id.data, ok: false, error: error.toShape() } };
}

function idOf(message: unknown): unknown {
  if (typeof message !== 'object' || message === null || !Object.hasOwn(message, 'id')) return undefined;
  return (message as { id: unknown }).id;
}

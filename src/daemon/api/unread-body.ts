import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';

// How long a client refused for its body's size may go on sending that body before its connection closes.
const UNREAD_BODY_GRACE_MS = 5_000;

/**
 * Lets the client of a request refused before its body was read (too large) finish sending it, read and
 * dropped, before the connection may close. fastify closes it at once: the kernel then resets a connection
 * the client is still writing to and drops the refusal unread, so the client saw EPIPE or ECONNRESET
 * instead of the 413. A body still coming after the grace period has its connection closed.
 */
export function dropUnreadBody(request: FastifyRequest, reply: FastifyReply, clock: Clock): void {
  const incoming = request.raw;
  if (incoming.complete) return;
  reply.removeHeader('connection');
  reply.raw.once('finish', () => {
    if (incoming.complete) return;
    const cancel = clock.setTimer(UNREAD_BODY_GRACE_MS, () => incoming.socket.destroy());
    incoming.once('end', cancel);
    incoming.resume();
  });
}

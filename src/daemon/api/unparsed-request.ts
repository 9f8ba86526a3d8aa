import { STATUS_CODES, maxHeaderSize, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorShape } from '../../core/errors.js';
import type { ApiPatience } from './api-patience.js';

/** What Node's HTTP parser throws: `reason` says what it could not read. */
interface ParserError extends Error {
  code?: string;
  reason?: string;
}

/** What a 408 says of how long a client may take. */
type RequestDeadlines = Pick<ApiPatience, 'headersMs' | 'requestMs'>;

/** The status and envelope refusing a request that Node's HTTP parser could not read, or not in time. */
export function unparsedRequestRefusal(
  error: ParserError,
  deadlines: RequestDeadlines,
): { status: number; shape: ErrorShape } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
    return {
      status: 408,
      shape: {
        code: 'VALIDATION_FAILED',
        message: `The request did not arrive in time: its headers within ${seconds(deadlines.headersMs)}, all of it within ${seconds(deadlines.requestMs)}.`,
        hint: 'Send each request whole and at once; a stalled client is cut off.',
      },
    };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      shape: {
        code: 'PAYLOAD_TOO_LARGE',
        message: `The request's headers are larger than ${maxHeaderSize} bytes.`,
        hint: 'Send fewer or shorter headers.',
      },
    };
  }
  return {
    status: 400,
    shape: {
      code: 'VALIDATION_FAILED',
      message: `Malformed HTTP request: ${error.reason ?? error.message}.`,
      hint: 'Send HTTP/1.1 requests as RFC 9112 describes them; the routes are in /v1/openapi.json.',
    },
  };
}

/**
 * Answers a request the parser refused (it never reaches fastify's handlers) with the envelope and closes
 * the connection. When the request before it in a pipeline is still being answered, that answer goes
 * first: Node's own handler writes its bare status at once, which the client takes for the answer to the
 * earlier request. When the refused part is the body of the request being answered, the refusal is its
 * answer, unless that answer has begun.
 */
export function refuseUnparsedRequest(error: ParserError, socket: Socket, deadlines: RequestDeadlines): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const refuse = (answer: boolean) => {
    if (answer && socket.writable) socket.write(refusalBytes(unparsedRequestRefusal(error, deadlines)));
    socket.destroy(error);
  };
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!inFlight || inFlight.writableFinished) refuse(true);
  else if (!inFlight.req.complete) refuse(!inFlight.headersSent);
  else inFlight.once('close', () => refuse(true));
}

function refusalBytes({ status, shape }: { status: number; shape: ErrorShape }): string {
  const body = JSON.stringify({ error: shape });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    'cache-control: no-store\r\nconnection: close\r\n\r\n' +
    body
  );
}

import net from 'node:net';
import tls from 'node:tls';

/** One HTTP/1.1 response as it came over the wire; `body` as text. */
export interface RawHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What the server did with raw bytes written on a connection of their own. */
export interface RawHttpExchange {
  responses: RawHttpResponse[];
  /** The server closed the connection (rather than the exchange giving up waiting). */
  closedByServer: boolean;
  /** Bytes after the last whole response that did not make one (a stream left open, or garbage). */
  rest: string;
}

export interface HttpsTarget {
  host: string;
  port: number;
  ca: string;
}

/**
 * Writes `bytes` on a new TLS connection (from `localAddress`, when given) and collects the responses that
 * come back until the server closes the connection, `idleMs` pass without more once a response is whole,
 * or `timeoutMs` pass. `head`: the first request is a HEAD, so its response has no body whatever its
 * Content-Length says. `trickle`: the bytes from `from` on go one at a time, `everyMs` apart, as a slow
 * client sends them.
 */
export function exchangeHttps(
  target: HttpsTarget,
  bytes: Buffer,
  {
    timeoutMs = 5_000,
    idleMs = 150,
    localAddress,
    head = false,
    trickle,
  }: {
    timeoutMs?: number;
    idleMs?: number;
    localAddress?: string;
    head?: boolean;
    trickle?: { from: number; everyMs: number };
  } = {},
): Promise<RawHttpExchange> {
  return new Promise((resolve) => {
    const tcp = net.connect({ host: target.host, port: target.port, localAddress });
    const socket = tls.connect({ socket: tcp, host: target.host, ca: target.ca });
    tcp.on('error', () => undefined);
    const responses: RawHttpResponse[] = [];
    let pending = Buffer.alloc(0);
    let idle: NodeJS.Timeout | undefined;
    let dripping: NodeJS.Timeout | undefined;
    const finish = (closedByServer: boolean): void => {
      clearTimeout(timer);
      clearTimeout(idle);
      clearInterval(dripping);
      socket.destroy();
      resolve({ responses, closedByServer, rest: pending.toString('utf8') });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // An interim response (100 Continue) comes before the answer itself and is not it.
      const answered = () => responses.some((response) => response.status >= 200);
      for (;;) {
        const parsed = parseResponse(pending, head && !answered());
        if (!parsed) break;
        responses.push(parsed.response);
        pending = pending.subarray(parsed.length);
      }
      clearTimeout(idle);
      if (answered()) idle = setTimeout(() => finish(false), idleMs);
    });
    socket.on('close', () => finish(true));
    // The server may cut a write short (EPIPE, ECONNRESET) once it has refused the request.
    socket.on('error', () => undefined);
    socket.on('secureConnect', () => {
      if (!trickle) return void socket.write(bytes);
      socket.write(bytes.subarray(0, trickle.from));
      let next = trickle.from;
      dripping = setInterval(() => {
        if (next < bytes.length && socket.writable) socket.write(bytes.subarray(next, (next += 1)));
      }, trickle.everyMs);
    });
  });
}

/**
 * The first whole response in `buffer` and its length in bytes, or null while it is incomplete. `head`:
 * it answers a HEAD, so it has no body whatever its Content-Length says (nor has an interim 1xx one).
 */
export function parseResponse(
  buffer: Buffer,
  head: boolean,
): { response: RawHttpResponse; length: number } | null {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd === -1) return null;
  const [statusLine = '', ...headerLines] = buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const bodyStart = headEnd + 4;
  // An event stream never ends: its head is the response, and what follows it is read no further.
  const stream = headers['content-type']?.startsWith('text/event-stream') === true;
  const noBody = head || status < 200;
  if (noBody || stream)
    return { response: { status, headers, body: '' }, length: stream ? buffer.length : bodyStart };
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked')
    return parseChunked(buffer, bodyStart, status, headers);
  const length = Number(headers['content-length'] ?? 0);
  if (buffer.length < bodyStart + length) return null;
  const body = buffer.subarray(bodyStart, bodyStart + length).toString('utf8');
  return { response: { status, headers, body }, length: bodyStart + length };
}

function parseChunked(
  buffer: Buffer,
  start: number,
  status: number,
  headers: Record<string, string>,
): { response: RawHttpResponse; length: number } | null {
  const chunks: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd === -1) return null;
    const size = parseInt(buffer.subarray(at, lineEnd).toString('latin1'), 16);
    if (buffer.length < lineEnd + 2 + size + 2) return null;
    if (size === 0) {
      const body = Buffer.concat(chunks).toString('utf8');
      return { response: { status, headers, body }, length: lineEnd + 4 };
    }
    chunks.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

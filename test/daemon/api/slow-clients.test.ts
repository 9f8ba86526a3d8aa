import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { useApiServerAlone } from '../../support/api-harness.js';
import { exchangeHttps } from '../../support/raw-https.js';

// Deadlines of a second or two, so that each is seen to hold; a server that checks its deadlines only
// every 30 s (Node's default), or waits 2 minutes for a TLS handshake, keeps these clients past GIVE_UP_MS.
const PATIENCE = { handshakeMs: 1_000, headersMs: 1_000, requestMs: 2_000 };
const GIVE_UP_MS = 15_000;

describe('clients that never finish a request', () => {
  const server = useApiServerAlone(PATIENCE);

  it('Given a client that connects and never starts TLS, when the handshake deadline passes, then the server closes the connection', async () => {
    const closedByServer = await new Promise<boolean>((resolve) => {
      const connection = net.connect(server().target.port, server().target.host);
      const giveUp = setTimeout(() => resolve(false), GIVE_UP_MS);
      connection.on('error', () => undefined);
      connection.on('close', () => {
        clearTimeout(giveUp);
        resolve(true);
      });
    });

    expect(closedByServer).toBe(true);
  });

  it('Given a client that sends its headers a byte at a time without end, when the headers deadline passes, then it gets 408 and the connection closes', async () => {
    const head = 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ';

    const result = await exchangeHttps(server().target, Buffer.from(head + 'a'.repeat(10_000)), {
      timeoutMs: GIVE_UP_MS,
      idleMs: GIVE_UP_MS,
      trickle: { from: head.length, everyMs: 100 },
    });

    expect(result.closedByServer).toBe(true);
    expect(result.responses.map((response) => response.status)).toEqual([408]);
    expect(JSON.parse(result.responses[0]!.body).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'The request did not arrive in time: its headers within 1 s, all of it within 2 s.',
    });
  });

  it('Given a client that sends its headers and part of its body and then nothing, when the request deadline passes, then it gets 408 and the connection closes', async () => {
    const request =
      'POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"input":';

    const result = await exchangeHttps(server().target, Buffer.from(request), {
      timeoutMs: GIVE_UP_MS,
      idleMs: GIVE_UP_MS,
    });

    expect(result.closedByServer).toBe(true);
    expect(result.responses.map((response) => response.status)).toEqual([408]);
    expect(JSON.parse(result.responses[0]!.body).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'The request did not arrive in time: its headers within 1 s, all of it within 2 s.',
    });
  });
});

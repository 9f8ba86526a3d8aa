import { describe, expect, it } from 'vitest';
import { useApiServerAlone } from '../../support/api-harness.js';
import { exchangeHttps } from '../../support/raw-https.js';

const TEN_MB = 10 * 1024 * 1024;

describe('request bodies over the 2 MiB limit', () => {
  const server = useApiServerAlone();

  it('Given a 10 MB body and then another request on one connection, when both are sent, then the body is refused with 413 and the next request answered', async () => {
    const head = `POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${TEN_MB}\r\n\r\n`;
    const next = 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';

    const { responses } = await exchangeHttps(
      server().target,
      Buffer.concat([Buffer.from(head), Buffer.alloc(TEN_MB, '['), Buffer.from(next)]),
      // The second request asks the server to close: the exchange ends there, however long a loaded
      // machine takes to drain 10 MB before answering it (not 150 ms after the 413).
      { timeoutMs: 15_000, idleMs: 15_000 },
    );

    expect(responses.map((response) => response.status)).toEqual([413, 200]);
    expect(JSON.parse(responses[0]!.body).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('Given a refused body that keeps coming, when the grace after the refusal passes, then the server closes the connection', async () => {
    const head =
      'POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n';

    const result = await exchangeHttps(server().target, Buffer.from(head + 'x'.repeat(100_000)), {
      timeoutMs: 20_000,
      idleMs: 20_000,
      trickle: { from: head.length, everyMs: 50 },
    });

    expect(result.responses.map((response) => response.status)).toEqual([413]);
    expect(result.closedByServer).toBe(true);
  });
});

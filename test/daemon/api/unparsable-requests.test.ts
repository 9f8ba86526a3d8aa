import { describe, expect, it } from 'vitest';
import { useApiServerAlone } from '../../support/api-harness.js';
import { exchangeHttps } from '../../support/raw-https.js';

const head = (lines: string[]) => Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);

// Requests Node's HTTP parser refuses never reach fastify's routes or error handler: without a handler of
// its own the server answered them with a body in fastify's shape, not the API's envelope.
describe('requests the HTTP parser cannot read', () => {
  const server = useApiServerAlone();

  it.each([
    ['an unknown method', head(['FOO /v1/jobs HTTP/1.1', 'Host: 127.0.0.1'])],
    [
      'two different Content-Lengths',
      head(['POST /v1/jobs HTTP/1.1', 'Host: 127.0.0.1', 'Content-Length: 2', 'Content-Length: 3']),
    ],
    ['a negative Content-Length', head(['POST /v1/jobs HTTP/1.1', 'Host: 127.0.0.1', 'Content-Length: -5'])],
    [
      'a chunk size that is not hex',
      Buffer.concat([
        head(['POST /v1/jobs HTTP/1.1', 'Host: 127.0.0.1', 'Transfer-Encoding: chunked']),
        Buffer.from('zz\r\n{}\r\n0\r\n\r\n'),
      ]),
    ],
    ['a NUL in a header value', head(['PATCH /v1/jobs/x HTTP/1.1', 'Host: 127.0.0.1', 'If-Match: \u0000'])],
    ['a space in the path', head(['GET /v1/jo bs HTTP/1.1', 'Host: 127.0.0.1'])],
  ])(
    'Given %s, when it is sent, then the answer is 400 in the error envelope and the connection closes',
    async (_what, bytes) => {
      const { responses, closedByServer } = await exchangeHttps(server().target, bytes);

      expect(responses.map((response) => response.status)).toEqual([400]);
      expect(JSON.parse(responses[0]!.body)).toEqual({
        error: {
          code: 'VALIDATION_FAILED',
          message: expect.stringMatching(/^Malformed HTTP request: .+\.$/),
          hint: expect.any(String),
        },
      });
      expect(closedByServer).toBe(true);
    },
  );

  it('Given headers over 16 KB, when they are sent, then the answer is 431 in the error envelope', async () => {
    const bytes = head(['GET /v1/jobs HTTP/1.1', 'Host: 127.0.0.1', `X-Big: ${'a'.repeat(20_000)}`]);

    const { responses } = await exchangeHttps(server().target, bytes);

    expect(responses.map((response) => response.status)).toEqual([431]);
    expect(JSON.parse(responses[0]!.body).error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: "The request's headers are larger than 16384 bytes.",
    });
  });

  it('Given an HTTP/1.1 request without Host, when it is sent, then the answer is 400 in the error envelope', async () => {
    const { responses } = await exchangeHttps(
      server().target,
      head(['GET /v1/health HTTP/1.1', 'Connection: close']),
    );

    expect(responses.map((response) => response.status)).toEqual([400]);
    expect(JSON.parse(responses[0]!.body).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'An HTTP/1.1 request needs a Host header.',
    });
  });

  it('Given a good request and then garbage on one connection, when both are sent, then the first is answered and the garbage refused in the envelope', async () => {
    const bytes = Buffer.concat([
      head(['GET /v1/health HTTP/1.1', 'Host: 127.0.0.1']),
      Buffer.from('garbage\r\n\r\n'),
    ]);

    const { responses } = await exchangeHttps(server().target, bytes);

    expect(responses.map((response) => response.status)).toEqual([200, 400]);
    expect(JSON.parse(responses[1]!.body).error.code).toBe('VALIDATION_FAILED');
  });
});

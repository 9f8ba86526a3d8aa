import { SchedError, type ErrorShape } from '../core/errors.js';

/** Node's and OpenSSL's codes for a certificate this process does not trust, or a TLS handshake that failed. */
const TLS_FAILURE = /CERT|SELF_SIGNED|ERR_TLS|ERR_SSL|EPROTO|UNABLE_TO_(GET|VERIFY)/;

/**
 * What a request that got no answer from the daemon's API becomes: DAEMON_UNAVAILABLE naming the URL,
 * and, when the server's certificate is the reason, saying so and how to trust it. An error with no
 * system or undici code is not the network's: it is returned as it is, to be reported as the bug it is.
 */
export function unreachable(url: string, error: unknown): Error {
  if (error instanceof Error && error.name === 'SchedError') return error;
  const code = errorCode(error);
  if (code === undefined) return error instanceof Error ? error : new Error(String(error));
  const reason = error instanceof Error ? error.message : String(error);
  if (TLS_FAILURE.test(code)) {
    return new SchedError(
      'DAEMON_UNAVAILABLE',
      `The sched daemon at ${url} is not trusted: its TLS certificate failed the check (${reason}).`,
      {
        hint: 'If the daemon’s certificate comes from a private CA (or is self-signed), give that CA’s PEM file with --ca-file or SCHED_CA_FILE; check that the URL names the host the certificate is for.',
        details: { url, errno: code, reason: 'tls' },
      },
    );
  }
  return new SchedError('DAEMON_UNAVAILABLE', `The sched daemon at ${url} cannot be reached (${code}).`, {
    hint: `Check the URL given with --remote or SCHED_REMOTE (${url}), that a daemon runs there with --api, and that this machine can reach that port.`,
    details: { url, errno: code },
  });
}

/** An event stream that sent what is not an event of sched's: it is treated as ended. */
export function unreadableStream(url: string, reason: string): SchedError {
  return new SchedError(
    'DAEMON_UNAVAILABLE',
    `The event stream of ${url} sent something unreadable (${reason}).`,
    {
      hint: 'Check the URL given with --remote or SCHED_REMOTE: it is the base URL of the daemon’s API (before /v1).',
      details: { url },
    },
  );
}

/**
 * The SchedError an API answer with a failing status carries (its error envelope), as the socket would
 * have given it; an answer without one (a proxy's page, another server) says what answered instead.
 */
export function refusal(url: string, status: number, body: string): SchedError {
  const shape = envelopeOf(body);
  if (shape !== null) return SchedError.fromShape(shape);
  return new SchedError(
    'DAEMON_UNAVAILABLE',
    `${url} answered HTTP ${status} without sched's error envelope: it may not be a sched daemon's API.`,
    {
      hint: 'Check the URL given with --remote or SCHED_REMOTE: it is the base URL of the daemon’s API (before /v1).',
      details: { url, status },
    },
  );
}

function envelopeOf(body: string): ErrorShape | null {
  try {
    const error = (JSON.parse(body) as { error?: Partial<ErrorShape> } | null)?.error;
    // A code this version does not know (a newer daemon's) still comes through, as INTERNAL.
    if (typeof error?.code !== 'string' || typeof error.message !== 'string') return null;
    return error as ErrorShape;
  } catch {
    return null;
  }
}

function errorCode(error: unknown): string | undefined {
  // undici wraps some failures (a closed socket, a timeout) around the system error that caused them.
  const codes: string[] = [];
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes.find((code) => !code.startsWith('UND_ERR_')) ?? codes[0];
}

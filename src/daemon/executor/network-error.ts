/** Why a request never produced a usable response, in words an operator can act on. */
export function describeNetworkError(error: unknown, origin: string): string {
  const code = errorCode(error);
  const detail = errorMessage(error);
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused (ECONNREFUSED) to ${origin}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
    case 'EAI_FAIL':
      return `DNS lookup failed (${code}) for ${hostOf(origin)}`;
    case 'ECONNRESET':
    case 'EPIPE':
      return `connection reset (${code}) by ${origin}`;
    case 'UND_ERR_SOCKET':
      return `connection to ${origin} closed before the response completed (UND_ERR_SOCKET: ${detail})`;
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return `connect timed out (${code}) to ${origin}`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `host unreachable (${code}) at ${origin}`;
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return `response from ${origin} ended before its content-length (${code})`;
    default:
      return code === null
        ? `request to ${origin} failed: ${detail}`
        : `request to ${origin} failed (${code}): ${detail}`;
  }
}

/** undici rejects with the socket's own error; with happy eyeballs it is an AggregateError of attempts. */
export function errorCode(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, errors, cause } = error as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors) && errors.length > 0) return errorCode(errors[0]);
  return cause === undefined ? null : errorCode(cause);
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

function hostOf(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return origin;
  }
}

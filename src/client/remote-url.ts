import { SchedError } from '../core/errors.js';
import { isLoopbackHost } from '../core/loopback-host.js';

const URL_HINT =
  'Give the daemon API’s base URL, such as https://sched.example.com:8443 (the daemon runs with --api).';

/**
 * The base URL of a daemon's API, checked: HTTPS (plain HTTP only to this machine, as the daemon serves it
 * only there), no credentials, query or fragment. A path is kept, for an API behind a proxy's prefix.
 */
export function remoteBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SchedError('VALIDATION_FAILED', `"${text}" is not a URL.`, { hint: URL_HINT });
  }
  if (url.username !== '' || url.password !== '') {
    throw new SchedError('VALIDATION_FAILED', 'The remote URL may not hold a user name or password.', {
      hint: 'Give the token with SCHED_TOKEN or --token-file instead; a URL ends up in logs and histories.',
    });
  }
  if (url.search !== '' || url.hash !== '') {
    throw new SchedError(
      'VALIDATION_FAILED',
      `The remote URL ${url.origin} may not have a query or fragment.`,
      {
        hint: URL_HINT,
      },
    );
  }
  const plainLoopback = url.protocol === 'http:' && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !plainLoopback) {
    throw new SchedError('VALIDATION_FAILED', `The remote URL must be https://, not ${url.protocol}//.`, {
      hint: `${URL_HINT} Plain http:// is taken only for this machine (localhost), where no one can read the token on the way.`,
    });
  }
  return url;
}

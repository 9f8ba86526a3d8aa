import { isSchedError } from '../core/errors.js';
import { isLoopbackHost } from '../core/loopback-host.js';
import { planPostgresTls, type PostgresTlsFiles } from '../store/postgres/tls-plan.js';
import { failure, pass, warning, type Check } from './check.js';

const TLS_FIX =
  'Add sslmode=verify-full&sslrootcert=/path/to/ca.pem to the store URL (or set pg_ca_file), with ssl = on on the server.';

/**
 * How the daemon reaches a PostgreSQL store, read from the URL and the TLS settings alone: doctor never
 * connects, so an unreachable server cannot hold it up. Null for a SQLite store.
 */
export function transportCheck(store: string, tls: PostgresTlsFiles): Check | null {
  if (!/^postgres(ql)?:\/\//.test(store)) return null;
  let url: URL;
  try {
    url = new URL(store);
  } catch {
    return null;
  }
  const host = url.searchParams.get('host') || url.hostname || 'localhost';
  // A host starting with / is a directory holding the server's Unix socket.
  if (host.startsWith('/') || isLoopbackHost(host))
    return pass('transport', `PostgreSQL on this host (${host}): nothing crosses the network`);
  let mode: string | null;
  let verified: boolean;
  try {
    const plan = planPostgresTls(store, tls);
    mode = plan.mode;
    verified = plan.mode === 'verify-full' || plan.mode === 'verify-ca' || plan.caFile !== null;
  } catch (error) {
    if (!isSchedError(error)) throw error;
    return failure('transport', error.message, error.hint ?? TLS_FIX);
  }
  const said = mode === null ? 'no sslmode' : `sslmode=${mode}`;
  if (mode === null || mode === 'disable' || mode === 'allow')
    return warning(
      'transport',
      `PostgreSQL at ${host} without TLS (${said}): the password and every job cross the network in clear`,
      TLS_FIX,
    );
  if (!verified)
    return warning(
      'transport',
      `PostgreSQL at ${host} over TLS without checking the server's certificate (${said}): anyone in between can pose as the server`,
      TLS_FIX,
    );
  return pass('transport', `PostgreSQL at ${host} over TLS, server certificate checked (${said})`);
}

import fs from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { planPostgresTls, SYSTEM_CAS, tlsError, type PostgresTlsFiles, type TlsPlan } from './tls-plan.js';

/** A PostgreSQL server to connect to: its URL, with the TLS file settings when there are any. */
export type PostgresServer = string | { url: string; tls: PostgresTlsFiles };

/** What pg's Client and Pool take to reach `server`, with TLS set up as its URL and settings ask. */
export function postgresClientConfig(server: PostgresServer): {
  connectionString: string;
  ssl?: ConnectionOptions | false;
} {
  const plan = typeof server === 'string' ? planPostgresTls(server) : planPostgresTls(server.url, server.tls);
  const ssl = tlsOptions(plan);
  return ssl === undefined
    ? { connectionString: plan.connectionString }
    : { connectionString: plan.connectionString, ssl };
}

/**
 * libpq's meaning of each sslmode, as far as pg can follow it. pg cannot fall back from one kind of
 * connection to the other, so `allow` (libpq tries without TLS first) connects without TLS and `prefer`
 * (libpq tries TLS first) insists on TLS, as `require` does. As with libpq, a CA given to a mode below
 * verify-ca makes it check the chain (not the name), and verify-full checks both.
 */
function tlsOptions(plan: TlsPlan): ConnectionOptions | false | undefined {
  if (plan.mode === null) return undefined;
  if (plan.mode === 'disable' || plan.mode === 'allow') return false;
  const options: ConnectionOptions = {};
  if (plan.caFile !== null && plan.caFile !== SYSTEM_CAS)
    options.ca = readTlsFile(plan.caFile, 'CA certificate (sslrootcert, pg_ca_file)');
  if (plan.certFile !== null && plan.keyFile !== null) {
    options.cert = readTlsFile(plan.certFile, 'client certificate (sslcert, pg_cert_file)');
    checkKeyFileMode(plan.keyFile);
    options.key = readTlsFile(plan.keyFile, 'client key (sslkey, pg_key_file)');
  }
  if (plan.mode === 'verify-full') return options;
  if (plan.mode === 'verify-ca' || plan.caFile !== null)
    return { ...options, checkServerIdentity: () => undefined };
  return { ...options, rejectUnauthorized: false };
}

function readTlsFile(file: string, what: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw tlsError(
      `Cannot read the PostgreSQL ${what} file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
      'Check the path, and that the daemon’s user can read the file.',
    );
  }
}

/**
 * libpq's rule, so that a key psql accepts is accepted here and one it refuses is refused: 0600 or less,
 * or 0640 or less when root owns it (a system-wide key shared with a group of daemon users). A key that
 * others can read is no longer the client's secret, so it is refused rather than warned about.
 */
function checkKeyFileMode(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw tlsError(
      `Cannot read the PostgreSQL client key file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}.`,
      'Check the pg_key_file setting (or sslkey in the store URL).',
    );
  }
  if ((stat.mode & (stat.uid === 0 ? 0o037 : 0o077)) !== 0)
    throw tlsError(
      `The PostgreSQL client key file ${file} is open to others (mode 0${(stat.mode & 0o777).toString(8)}).`,
      `chmod 600 ${file} (or, owned by root, 640 for a group that shares it), as libpq requires too.`,
    );
}

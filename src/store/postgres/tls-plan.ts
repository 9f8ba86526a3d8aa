import { SchedError } from '../../core/errors.js';

/** libpq's sslmode values, weakest first. */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** The `pg_ca_file`, `pg_cert_file` and `pg_key_file` settings; null when not set. */
export interface PostgresTlsFiles {
  caFile: string | null;
  certFile: string | null;
  keyFile: string | null;
}

/** libpq's `sslrootcert=system`: the host's trusted CAs, for a server with a public certificate. */
export const SYSTEM_CAS = 'system';

export const NO_TLS_FILES: PostgresTlsFiles = Object.freeze({ caFile: null, certFile: null, keyFile: null });

/** How a connection to PostgreSQL is secured, once the URL and the settings are taken together. */
export interface TlsPlan extends PostgresTlsFiles {
  /** The URL without its TLS parameters, so that pg does not apply them a second time over ours. */
  connectionString: string;
  /** null: nothing asked for TLS (pg then follows PGSSLMODE, else connects without it). */
  mode: SslMode | null;
}

// pg reads these from the URL itself and would override the options built here, so they are taken out.
const TLS_PARAMETERS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'ssl', 'uselibpqcompat'];

/**
 * Takes the URL's `sslmode`, `sslrootcert`, `sslcert` and `sslkey` together with the settings. The URL
 * wins where both name a file (it is the more specific of the two, as a libpq connection string wins
 * over PGSSLROOTCERT); the settings fill in what it lacks. A file given without an sslmode means
 * verify-full: whoever names a CA wants the server checked against it.
 */
export function planPostgresTls(url: string, settings: PostgresTlsFiles = NO_TLS_FILES): TlsPlan {
  // The store setting is checked to be a URL before it gets here; a string that is not one has no parameters.
  const parsed = URL.canParse(url) ? new URL(url) : null;
  const query = parsed?.searchParams ?? new URLSearchParams();
  const caFile = query.get('sslrootcert') || settings.caFile;
  const certFile = query.get('sslcert') || settings.certFile;
  const keyFile = query.get('sslkey') || settings.keyFile;
  const anyFile = caFile !== null || certFile !== null || keyFile !== null;
  const mode = modeOf(query.get('sslmode'), query.get('ssl')) ?? (anyFile ? 'verify-full' : null);
  for (const name of TLS_PARAMETERS) query.delete(name);

  if (mode === 'disable' && anyFile)
    throw tlsError(
      'sslmode=disable turns TLS off, yet a certificate or key file is given (sslrootcert, sslcert, sslkey or a pg_*_file setting).',
      'Remove sslmode=disable from the store URL, or remove the certificate settings.',
    );
  if ((certFile === null) !== (keyFile === null))
    throw tlsError(
      `A client certificate needs both its certificate and its key; only the ${certFile === null ? 'key' : 'certificate'} is given.`,
      'Set both pg_cert_file and pg_key_file (or sslcert and sslkey in the store URL).',
    );
  if (mode === 'verify-ca' && caFile === null)
    throw tlsError(
      'sslmode=verify-ca needs the CA to check the server against, and none is given.',
      'Add sslrootcert=/path/to/ca.pem to the store URL or set pg_ca_file (or use sslmode=verify-full).',
    );
  if (caFile === SYSTEM_CAS && mode !== 'verify-full')
    throw tlsError(
      `sslrootcert=system trusts every CA of the host, so it needs sslmode=verify-full (got ${mode}).`,
      'Use sslmode=verify-full with sslrootcert=system, as libpq does.',
    );
  return { connectionString: parsed?.toString() ?? url, mode, caFile, certFile, keyFile };
}

function modeOf(sslmode: string | null, ssl: string | null): SslMode | null {
  if (sslmode !== null) {
    if ((SSL_MODES as readonly string[]).includes(sslmode)) return sslmode as SslMode;
    throw tlsError(
      `Unknown sslmode "${sslmode}" in the store URL.`,
      `Use one of ${SSL_MODES.join(', ')} (verify-full checks the server's certificate and name).`,
    );
  }
  // pg's own switch: ssl=true asks for TLS with the server checked, as verify-full does.
  if (ssl === 'true' || ssl === '1') return 'verify-full';
  if (ssl === 'false' || ssl === '0') return 'disable';
  return null;
}

export function tlsError(message: string, hint: string): SchedError {
  return new SchedError('VALIDATION_FAILED', message, { hint });
}

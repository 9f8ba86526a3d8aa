import fs from 'node:fs';
import tls from 'node:tls';
import { SchedError } from '../../core/errors.js';

export interface ApiTls {
  cert: Buffer;
  key: Buffer;
}

/**
 * The API's certificate and key, read and tried together before the daemon starts anything: a file that
 * cannot be read, is not PEM, or a key that does not match the certificate stops the start with a clear
 * error rather than later, inside the TLS server.
 */
export function readApiTls(files: { certFile: string; keyFile: string }): ApiTls {
  const cert = readPem(files.certFile, 'certificate', '--tls-cert', 'tls_cert_file');
  const key = readPem(files.keyFile, 'key', '--tls-key', 'tls_key_file');
  try {
    tls.createSecureContext({ cert, key, minVersion: 'TLSv1.2' });
  } catch (error) {
    throw new SchedError(
      'VALIDATION_FAILED',
      `The API's TLS certificate ${files.certFile} and key ${files.keyFile} cannot be used: ${(error as Error).message}.`,
      {
        hint: 'Give a PEM certificate with --tls-cert and its own private key with --tls-key (config: [api] tls_cert_file and tls_key_file).',
        details: { certFile: files.certFile, keyFile: files.keyFile },
      },
    );
  }
  return { cert, key };
}

function readPem(file: string, what: string, flag: string, key: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new SchedError(
      'VALIDATION_FAILED',
      `The API's TLS ${what} ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
      { hint: `Give a readable PEM file with ${flag} (config: [api] ${key}).`, details: { file } },
    );
  }
}

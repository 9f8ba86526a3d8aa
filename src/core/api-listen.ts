import type { OidcSettings } from './api-oidc.js';
import { SchedError } from './errors.js';
import { isLoopbackHost } from './loopback-host.js';

/** `[api]` as configured. */
export interface ApiSettings {
  /** host:port; null: the API is off. */
  listen: string | null;
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  allowPlainHttp: boolean;
  /** JWTs from an OIDC issuer, accepted besides API tokens when its keys are set (see api-oidc.ts). */
  oidc: OidcSettings;
}

/** How the API listens: with TLS from these files, or plain HTTP (loopback only, and only when asked). */
export type ApiListenPlan =
  | { host: string; port: number; tls: { certFile: string; keyFile: string } }
  | { host: string; port: number; tls: null };

/**
 * Where and how the API may listen, or why it may not: HTTPS always, except plain HTTP on a loopback
 * address when `allow_plain_http` asks for it (a reverse proxy on the same host, or a test). Tokens sent
 * in clear over a network would be anyone's.
 */
export function apiListenPlan(settings: ApiSettings): ApiListenPlan | null {
  if (settings.listen === null) return null;
  const match = /^\[?([^\]]*?)\]?:(\d{1,5})$/.exec(settings.listen.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || match[1] === '' || port > 65_535) {
    throw new SchedError('VALIDATION_FAILED', `Invalid API address "${settings.listen}".`, {
      hint: 'Give host:port, such as 0.0.0.0:8443, or 127.0.0.1:8443 for this host only.',
      details: { listen: settings.listen },
    });
  }
  const host = match[1]!;
  const { tlsCertFile, tlsKeyFile } = settings;
  if (tlsCertFile !== null && tlsKeyFile !== null)
    return { host, port, tls: { certFile: tlsCertFile, keyFile: tlsKeyFile } };
  if (tlsCertFile !== null || tlsKeyFile !== null) {
    throw new SchedError(
      'VALIDATION_FAILED',
      'The API needs both a TLS certificate and its key; only one is set.',
      {
        hint: 'Give both --tls-cert FILE and --tls-key FILE (config: [api] tls_cert_file and tls_key_file).',
        details: { tlsCertFile, tlsKeyFile },
      },
    );
  }
  if (!settings.allowPlainHttp) {
    throw new SchedError(
      'VALIDATION_FAILED',
      `The API on ${settings.listen} needs TLS: no certificate and key are set.`,
      {
        hint:
          'Give --tls-cert FILE and --tls-key FILE (config: [api] tls_cert_file and tls_key_file); plain HTTP is ' +
          'allowed only on a loopback address with [api] allow_plain_http = true.',
        details: { listen: settings.listen },
      },
    );
  }
  if (!isLoopbackHost(host)) {
    throw new SchedError(
      'VALIDATION_FAILED',
      `Plain HTTP is allowed on a loopback address only, and ${host} can be reached from other hosts: tokens would cross the network in clear.`,
      {
        hint: 'Listen on 127.0.0.1 (or ::1) for plain HTTP, or give --tls-cert and --tls-key to serve HTTPS.',
        details: { listen: settings.listen },
      },
    );
  }
  return { host, port, tls: null };
}

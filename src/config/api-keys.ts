import path from 'node:path';
import { z } from 'zod';
import { isJwksUrl } from '../core/api-oidc.js';
import type { KeySpec } from './keys.js';

const ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

function isListenAddress(text: string): boolean {
  const port = ADDRESS.exec(text.trim())?.[2];
  return port !== undefined && Number(port) <= 65_535;
}

function fileKey(key: string, env: string, flag: string, what: string): KeySpec {
  return {
    key,
    env,
    flag,
    expects: `the absolute path of ${what}`,
    schema: z.string().refine((text) => path.isAbsolute(text)),
    fromText: (text) => path.resolve(text.trim()),
    default: () => null,
  };
}

function textKey(key: string, env: string, expects: string, fallback: string | null): KeySpec {
  return {
    key,
    env,
    expects,
    schema: z
      .string()
      .refine((text) => text.trim() !== '')
      .transform((text) => text.trim()),
    fromText: (text) => text,
    default: () => fallback,
  };
}

/**
 * `[api]`: the HTTPS API. Off unless `listen` is set; TLS unless `allow_plain_http` is true, which the
 * daemon accepts on a loopback address only (see core/api-listen.ts).
 */
export const API_KEYS: readonly KeySpec[] = [
  {
    key: 'api.listen',
    env: 'SCHED_API_LISTEN',
    flag: '--api',
    expects: 'host:port such as "0.0.0.0:8443" or "127.0.0.1:8443", or "off"',
    schema: z
      .union([z.literal(false), z.string().refine((text) => text.trim() === 'off' || isListenAddress(text))])
      .transform((value) => (value === false || value.trim() === 'off' ? null : value.trim())),
    fromText: (text) => text.trim(),
    default: () => null,
  },
  fileKey('api.tls_cert_file', 'SCHED_API_TLS_CERT_FILE', '--tls-cert', 'the API’s TLS certificate (PEM)'),
  fileKey('api.tls_key_file', 'SCHED_API_TLS_KEY_FILE', '--tls-key', 'the API’s TLS private key (PEM)'),
  {
    key: 'api.allow_plain_http',
    env: 'SCHED_API_ALLOW_PLAIN_HTTP',
    expects: 'true or false (plain HTTP is accepted on a loopback address only)',
    schema: z.boolean(),
    fromText: (text) => (text.trim() === 'true' ? true : text.trim() === 'false' ? false : text),
    default: () => false,
  },
  {
    key: 'api.jwks_url',
    env: 'SCHED_API_JWKS_URL',
    expects: 'the https URL of an OIDC issuer’s JSON Web Key Set (http for a loopback host only)',
    schema: z
      .string()
      .refine(isJwksUrl)
      .transform((text) => text.trim()),
    fromText: (text) => text,
    default: () => null,
  },
  textKey('api.issuer', 'SCHED_API_ISSUER', 'the issuer (iss) the JWTs must name', null),
  textKey('api.audience', 'SCHED_API_AUDIENCE', 'the audience (aud) the JWTs must be for', null),
  textKey('api.roles_claim', 'SCHED_API_ROLES_CLAIM', 'the name of the JWT claim holding the roles', 'roles'),
  textKey('api.owner_claim', 'SCHED_API_OWNER_CLAIM', 'the name of the JWT claim naming the owner', 'sub'),
];

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { exportJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import { apiAddress, apiClient, apiDaemonArgs, makeCertificate } from './api-harness.js';
import type { useDaemons } from './sched-harness.js';

export const ISSUER = 'https://id.sched.test';
export const AUDIENCE = 'sched-api';

/** A public key as an identity provider lists it in its JWKS. */
export async function listedKey(publicKey: CryptoKey, kid = 'k1'): Promise<JWK> {
  return { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
}

export interface JwksServer {
  url: string;
  /** How many requests it has had. */
  fetches(): number;
  /** Whether it answers with the keys, or with 500 as a provider that is down behind its proxy. */
  answer(how: 'keys' | 'failure'): void;
  close(): Promise<void>;
}

/** A JWKS served over HTTP on a free loopback port, as an identity provider would at its jwks_uri. */
export async function serveJwks(keys: JWK[]): Promise<JwksServer> {
  let fetches = 0;
  let failing = false;
  const server = http.createServer((request, response) => {
    fetches += 1;
    response.writeHead(failing ? 500 : 200, { 'content-type': 'application/json' });
    response.end(failing ? '{"error":"down"}' : JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    fetches: () => fetches,
    answer: (how) => (failing = how === 'failure'),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A daemon serving the API over HTTPS that accepts JWTs whose keys are at `jwksUrl`. */
export async function startOidcDaemon(daemons: ReturnType<typeof useDaemons>, jwksUrl: string) {
  const home = daemons.home();
  const certificate = makeCertificate(home);
  const config = path.join(home, 'config.toml');
  fs.writeFileSync(
    config,
    `[api]\njwks_url = "${jwksUrl}"\nissuer = "${ISSUER}"\naudience = "${AUDIENCE}"\n`,
  );
  const daemon = await daemons.start(home, apiDaemonArgs(certificate), { SCHED_CONFIG: config });
  const url = `https://${await apiAddress(daemon)}`;
  return { home, daemon, url, certFile: certificate.certFile, api: apiClient(url, certificate.ca) };
}

export interface Signing {
  alg?: string;
  kid?: string;
  issuer?: string;
  audience?: string;
  expiresAt?: number | string;
  subject?: string;
}

/** A JWT as the issuer would sign it: for sched's audience, for `ci-bot`, good for 10 minutes unless told. */
export function signJwt(
  key: CryptoKey | Uint8Array,
  claims: Record<string, unknown>,
  signing: Signing = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: signing.alg ?? 'ES256', kid: signing.kid ?? 'k1' })
    .setIssuer(signing.issuer ?? ISSUER)
    .setAudience(signing.audience ?? AUDIENCE)
    .setSubject(signing.subject ?? 'ci-bot')
    .setIssuedAt()
    .setExpirationTime(signing.expiresAt ?? '10m')
    .sign(key);
}

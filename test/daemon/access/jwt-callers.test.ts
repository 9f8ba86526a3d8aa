import { generateKeyPair } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import type { OidcPlan } from '../../../src/core/api-oidc.js';
import { JwtCallers } from '../../../src/daemon/access/jwt-callers.js';
import { systemClock } from '../../../src/daemon/clock.js';
import {
  AUDIENCE,
  ISSUER,
  listedKey,
  serveJwks,
  signJwt,
  type JwksServer,
} from '../../support/oidc-issuer.js';
import { sleep } from '../../support/sched-harness.js';

/** `[api]` accepting JWTs whose keys `idp` serves. */
function planOf(idp: JwksServer): OidcPlan {
  return { jwksUrl: idp.url, issuer: ISSUER, audience: AUDIENCE, rolesClaim: 'roles', ownerClaim: 'sub' };
}

describe('JwtCallers while the identity provider cannot be reached', () => {
  let idp: JwksServer | undefined;

  afterEach(async () => {
    await idp?.close();
  });

  it('Given keys fetched and then grown older than their cache age, when a refresh fails, then JWTs of those keys still pass with one fetch, and one of a key id never seen is IDENTITY_PROVIDER_UNAVAILABLE, not refused', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    idp = await serveJwks([await listedKey(publicKey)]);
    // Keys stale after a second; a cooldown longer than the test, so no fetch is made after the failed one.
    const callers = new JwtCallers(planOf(idp), systemClock, 'sched-daemon', {
      timeoutMs: 5_000,
      maxAgeMs: 1_000,
      failureCooldownMs: 600_000,
    });
    const known = await signJwt(privateKey, { roles: ['operator'] });
    expect((await callers.callerOf(known)).token).toMatchObject({ role: 'operator', kind: 'jwt' });
    expect(idp.fetches()).toBe(1);

    idp.answer('failure');
    await sleep(1_500);
    const refreshFailed = await callers.callerOf(known);
    const inCooldown = await callers.callerOf(await signJwt(privateKey, { roles: ['viewer'] }));
    const unseenKey = callers.callerOf(await signJwt(privateKey, { roles: ['viewer'] }, { kid: 'k2' }));

    expect(refreshFailed.token).toMatchObject({ role: 'operator' });
    expect(inCooldown.token).toMatchObject({ role: 'viewer' });
    await expect(unseenKey).rejects.toMatchObject({
      code: 'IDENTITY_PROVIDER_UNAVAILABLE',
      details: { jwksUrl: idp.url, retryAfterMs: expect.any(Number) },
    });
    expect(idp.fetches()).toBe(2);
  });

  it('Given keys never fetched, when the provider answers 500, then the JWT is IDENTITY_PROVIDER_UNAVAILABLE saying why, and so is the next without a fetch', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    idp = await serveJwks([await listedKey(publicKey)]);
    idp.answer('failure');
    const callers = new JwtCallers(planOf(idp), systemClock, 'sched-daemon');
    const jwt = await signJwt(privateKey, { roles: ['operator'] });

    const first = callers.callerOf(jwt);
    await expect(first).rejects.toMatchObject({
      code: 'IDENTITY_PROVIDER_UNAVAILABLE',
      message: expect.stringContaining('Expected 200 OK'),
    });
    await expect(callers.callerOf(jwt)).rejects.toMatchObject({ code: 'IDENTITY_PROVIDER_UNAVAILABLE' });
    expect(idp.fetches()).toBe(1);
  });
});

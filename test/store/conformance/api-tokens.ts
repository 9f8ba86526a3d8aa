import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/store/ids.js';
import type { NewApiToken } from '../../../src/store/store.js';
import { T0, type CurrentStore } from './fixtures.js';

function newToken(name: string, overrides: Partial<NewApiToken> = {}): NewApiToken {
  return {
    id: newId(),
    name,
    hash: `hash-of-${name}-${newId()}`,
    role: 'operator',
    owner: 'alice',
    createdAt: T0,
    expiresAt: null,
    createdBy: 'root (uid 0)',
    ...overrides,
  };
}

export function describeApiTokenCases(store: CurrentStore): void {
  describe('API tokens', () => {
    it('Given a token stored, when it is found by its hash, then every field comes back and the hash is not among them', async () => {
      const stored = newToken('ci', { role: 'viewer', expiresAt: T0 + 1000 });
      await store().createApiToken(stored);

      const found = await store().findApiTokenByHash(stored.hash);

      expect(found).toEqual({
        id: stored.id,
        name: 'ci',
        role: 'viewer',
        owner: 'alice',
        createdAt: T0,
        expiresAt: T0 + 1000,
        lastUsedAt: null,
        revokedAt: null,
        createdBy: 'root (uid 0)',
      });
      expect(await store().findApiTokenByHash('no such hash')).toBeNull();
    });

    it('Given a live token named ci, when another token named ci is created, then it is refused and nothing is written', async () => {
      await store().createApiToken(newToken('ci'));
      const second = newToken('ci', { role: 'admin' });

      expect(await store().createApiToken(second)).toBeNull();
      expect(await store().findApiTokenByHash(second.hash)).toBeNull();
      expect((await store().listApiTokens()).map((token) => token.role)).toEqual(['operator']);
    });

    it('Given a token revoked, when the list is read, then it is gone from it, its name is free again, and its hash still finds it as revoked', async () => {
      const first = newToken('ci');
      await store().createApiToken(first);
      await store().createApiToken(newToken('deploy'));

      const revoked = await store().revokeApiToken('ci', T0 + 5);
      const again = await store().createApiToken(newToken('ci'));

      expect(revoked).toMatchObject({ name: 'ci', revokedAt: T0 + 5 });
      expect(again).toMatchObject({ name: 'ci', revokedAt: null });
      expect((await store().listApiTokens()).map((token) => token.id)).toEqual(
        expect.arrayContaining([again!.id]),
      );
      expect((await store().listApiTokens()).map((token) => token.id)).not.toContain(first.id);
      expect(await store().findApiTokenByHash(first.hash)).toMatchObject({ revokedAt: T0 + 5 });
    });

    it('Given no live token of that name, when it is revoked, then null comes back', async () => {
      expect(await store().revokeApiToken('nobody', T0)).toBeNull();
    });

    it('Given a token used, when it is touched, then its last use is recorded', async () => {
      const token = newToken('ci');
      await store().createApiToken(token);

      await store().touchApiToken(token.id, T0 + 42);

      expect((await store().listApiTokens())[0]).toMatchObject({ lastUsedAt: T0 + 42 });
    });

    it('Given tokens created out of order, when listed, then they come by name', async () => {
      for (const name of ['zeta', 'alpha', 'mid']) await store().createApiToken(newToken(name));

      expect((await store().listApiTokens()).map((token) => token.name)).toEqual(['alpha', 'mid', 'zeta']);
    });
  });
}

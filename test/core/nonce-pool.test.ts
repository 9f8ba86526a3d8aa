import { randomFillSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NoncePool } from '../../src/core/nonce-pool.js';

describe('NoncePool', () => {
  it('given many takes, hands out 12-byte nonces, never one twice, filling once per 1,024', () => {
    let fills = 0;
    const pool = new NoncePool((bytes) => {
      fills += 1;
      randomFillSync(bytes);
    });
    const seen = new Set<string>();
    for (let index = 0; index < 3_000; index++) {
      const nonce = pool.take();
      expect(nonce).toHaveLength(12);
      seen.add(Buffer.from(nonce).toString('hex'));
    }
    expect(seen.size).toBe(3_000);
    expect(fills).toBe(3);
  });
});

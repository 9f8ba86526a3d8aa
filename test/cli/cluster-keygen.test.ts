import { afterAll, describe, expect, it } from 'vitest';
import { parseKeyFile } from '../../src/core/peer/cluster-keyring.js';
import { makeHome, removeHome, sched } from '../support/sched-harness.js';

const home = makeHome('sched-cluster-keygen-');
afterAll(() => removeHome(home));

describe('sched cluster keygen', () => {
  it('prints a fresh key that is a key file as it is, with no daemon running', async () => {
    const [first, second] = [
      await sched(home, ['cluster', 'keygen']),
      await sched(home, ['cluster', 'keygen']),
    ];
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(first.stdout).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    expect(parseKeyFile(first.stdout, 'stdout').keys).toEqual([first.stdout.trim()]);
    expect(Buffer.from(first.stdout.trim(), 'base64')).toHaveLength(32);
    expect(second.stdout).not.toBe(first.stdout);
  });

  it('refuses --json, so the key is never put in JSON', async () => {
    const result = await sched(home, ['cluster', 'keygen', '--json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });
});

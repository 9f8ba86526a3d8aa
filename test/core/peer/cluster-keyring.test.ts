import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  formatKeyFile,
  installKey,
  isClusterKey,
  MAX_CLUSTER_KEYS,
  parseKeyFile,
  primaryKey,
  removeKey,
  useKey,
} from '../../../src/core/peer/cluster-keyring.js';

const newKey = () => randomBytes(32).toString('base64');

describe('the cluster keyring', () => {
  it('given a key file of one key per line, takes the first as primary and skips blanks and comments', () => {
    const [a, b] = [newKey(), newKey()];
    const ring = parseKeyFile(`# rotated 2026-12-03\n${a}\n\n  ${b}  \r\n`, 'cluster.key');
    expect(ring.keys).toEqual([a, b]);
    expect(primaryKey(ring)).toBe(a);
    expect(parseKeyFile(formatKeyFile(ring), 'cluster.key')).toEqual(ring);
  });

  it('given a line that is not a 32-byte base64 key, refuses the file naming the line', () => {
    const short = randomBytes(16).toString('base64');
    expect(() => parseKeyFile(`${newKey()}\n${short}\n`, 'cluster.key')).toThrow(
      /Line 2 of the cluster key file/,
    );
    expect(() => parseKeyFile('# only a comment\n', 'cluster.key')).toThrow(/holds no key/);
    expect(isClusterKey(newKey())).toBe(true);
    expect(isClusterKey(randomBytes(33).toString('base64'))).toBe(false);
    expect(isClusterKey(`${newKey().slice(0, 43)}!`)).toBe(false);
  });

  it('given install, adds a key that opens without changing the primary, and is idempotent', () => {
    const [a, b] = [newKey(), newKey()];
    const ring = installKey({ keys: [a] }, b);
    expect(ring.keys).toEqual([a, b]);
    expect(installKey(ring, b)).toEqual(ring);
    expect(() => installKey(ring, 'not-a-key')).toThrow(/not a cluster key/);
  });

  it('given use, makes an installed key primary and keeps the old one installed', () => {
    const [a, b] = [newKey(), newKey()];
    const ring = useKey({ keys: [a, b] }, b);
    expect(ring.keys).toEqual([b, a]);
    expect(() => useKey(ring, newKey())).toThrow(/not installed/);
  });

  it('given remove, drops a secondary key but never the primary', () => {
    const [a, b] = [newKey(), newKey()];
    expect(removeKey({ keys: [a, b] }, b).keys).toEqual([a]);
    expect(removeKey({ keys: [a] }, b).keys).toEqual([a]);
    expect(() => removeKey({ keys: [a, b] }, a)).toThrow(
      expect.objectContaining({
        code: 'INVALID_STATE',
        message: expect.stringMatching(/primary key cannot be removed/),
      }),
    );
  });

  it('given a full ring, refuses another key', () => {
    let ring = { keys: [newKey()] as readonly string[] };
    while (ring.keys.length < MAX_CLUSTER_KEYS) ring = installKey(ring, newKey());
    expect(() => installKey(ring, newKey())).toThrow(/at most 16 keys/);
  });
});

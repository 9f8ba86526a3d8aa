import { describe, expect, it } from 'vitest';
import {
  formatPeerAddress,
  parsePeerAddress,
  tryParsePeerAddress,
} from '../../../src/core/peer/peer-address.js';

describe('peer addresses', () => {
  it.each([
    ['10.0.0.1:7946', { host: '10.0.0.1', port: 7946 }],
    ['[::1]:7946', { host: '::1', port: 7946 }],
    ['[fd00::12:1]:1', { host: 'fd00::12:1', port: 1 }],
    ['node-3.example.org:65535', { host: 'node-3.example.org', port: 65535 }],
  ])('given %s, reads host and port and writes them back the same', (text, address) => {
    expect(parsePeerAddress(text)).toEqual(address);
    expect(formatPeerAddress(address)).toBe(text);
  });

  it.each([
    '10.0.0.1',
    '::1:7946',
    '10.0.0.1:0',
    '10.0.0.1:65536',
    'a b:1',
    '[::1]',
    '[zz]:1',
    ':7946',
    'host:-1',
  ])('given %s, refuses it with how to write one', (text) => {
    expect(tryParsePeerAddress(text)).toBeNull();
    expect(() => parsePeerAddress(text)).toThrow(
      expect.objectContaining({ hint: expect.stringMatching(/host:port/) }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/core/loopback-host.js';

const ONLY_THIS_MACHINE = [
  'localhost',
  'LOCALHOST',
  'db.localhost',
  '127.0.0.1',
  '127.1.2.3',
  '::1',
  '[::1]',
  '::ffff:127.0.0.1',
];
const REACHABLE_FROM_ELSEWHERE = [
  '0.0.0.0',
  '::',
  '10.0.0.5',
  '192.0.2.10',
  'db.example.com',
  '128.0.0.1',
  'localhost.example.com',
];

describe('isLoopbackHost', () => {
  it.each(ONLY_THIS_MACHINE)('counts %s as loopback', (host) => expect(isLoopbackHost(host)).toBe(true));

  it.each(REACHABLE_FROM_ELSEWHERE)('counts %s as reachable from other hosts', (host) =>
    expect(isLoopbackHost(host)).toBe(false),
  );
});

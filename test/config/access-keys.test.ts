import { describe, expect, it } from 'vitest';
import { parseSocketMode } from '../../src/config/access-keys.js';

describe('socket_mode', () => {
  it('reads octal text with or without a leading 0 or 0o, and TOML octal integers', () => {
    expect(parseSocketMode('0660')).toBe(0o660);
    expect(parseSocketMode('660')).toBe(0o660);
    expect(parseSocketMode('0o666')).toBe(0o666);
    expect(parseSocketMode(0o600)).toBe(0o600);
  });

  it('refuses a mode that takes read or write from the owner, or is not a mode', () => {
    expect(parseSocketMode('0460')).toBeNull();
    expect(parseSocketMode('0066')).toBeNull();
    expect(parseSocketMode('0800')).toBeNull();
    expect(parseSocketMode('rw-rw----')).toBeNull();
    expect(parseSocketMode(0o1777 + 1)).toBeNull();
  });
});

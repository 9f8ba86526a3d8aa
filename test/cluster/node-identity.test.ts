import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadNodeId } from '../../src/cluster/node-identity.js';
import { SchedError } from '../../src/core/errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const homes: string[] = [];

function tempHome(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-node-id-'));
  homes.push(home);
  return home;
}

afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

describe('loadNodeId', () => {
  it('given a home without an id, makes a UUID and keeps it in node-id, readable by the owner only', () => {
    const home = tempHome();

    const id = loadNodeId(home);

    expect(id).toMatch(UUID);
    const file = path.join(home, 'node-id');
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(id);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(home)).toEqual(['node-id']);
  });

  it('given an id made before, returns the same one on every later start', () => {
    const home = tempHome();
    const first = loadNodeId(home);

    expect(loadNodeId(home)).toBe(first);
    expect(loadNodeId(home)).toBe(first);
  });

  it('given a home that does not exist yet, creates it', () => {
    const home = path.join(tempHome(), 'nested', 'sched');
    expect(loadNodeId(home)).toMatch(UUID);
  });

  it('given an id file written by hand in upper case with spaces, reads it as the same id', () => {
    const home = tempHome();
    fs.writeFileSync(path.join(home, 'node-id'), '  3F2B8C1E-0D4A-4F6B-9C2E-7A1D5E8F9B0C \n');

    expect(loadNodeId(home)).toBe('3f2b8c1e-0d4a-4f6b-9c2e-7a1d5e8f9b0c');
  });

  it.each([
    ['empty', ''],
    ['garbage', 'not-a-node-id\n'],
    ['truncated', '3f2b8c1e-0d4a-4f6b-9c2e'],
  ])(
    'given a %s id file, fails with a clear error naming the file, and leaves it as it was',
    (_kind, text) => {
      const home = tempHome();
      const file = path.join(home, 'node-id');
      fs.writeFileSync(file, text);

      let error: unknown;
      try {
        loadNodeId(home);
      } catch (thrown) {
        error = thrown;
      }

      expect(error).toBeInstanceOf(SchedError);
      expect((error as SchedError).message).toContain(file);
      expect((error as SchedError).hint).toMatch(/Delete it/);
      expect(fs.readFileSync(file, 'utf8')).toBe(text);
    },
  );
});

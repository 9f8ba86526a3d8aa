import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { installKey, useKey } from '../../../src/core/peer/cluster-keyring.js';
import { readClusterKeyFile, writeClusterKeyFile } from '../../../src/cluster/peer/cluster-key-file.js';
import { repoRoot } from '../../support/sched-harness.js';
import { newKey } from './peer-test-kit.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function keyFile(content: string, mode = 0o600): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-cluster-key-'));
  dirs.push(dir);
  const file = path.join(dir, 'cluster.key');
  fs.writeFileSync(file, content, { mode });
  fs.chmodSync(file, mode);
  return file;
}

describe('the cluster key file', () => {
  it('given the output of sched cluster keygen, reads one primary key', () => {
    const key = execFileSync('node', [path.join(repoRoot, 'bin/run.js'), 'cluster', 'keygen'], {
      encoding: 'utf8',
    });
    expect(readClusterKeyFile(keyFile(key)).keys).toEqual([key.trim()]);
  });

  it('given a rotation written back, reads the ring as it was left, still readable by its owner only', () => {
    const [k1, k2] = [newKey(), newKey()];
    const file = keyFile(`${k1}\n`);
    writeClusterKeyFile(file, useKey(installKey(readClusterKeyFile(file), k2), k2));
    expect(readClusterKeyFile(file).keys).toEqual([k2, k1]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['cluster.key']);
  });

  it('given a file others may read, refuses it and says how to fix it', () => {
    const file = keyFile(`${newKey()}\n`, 0o644);
    expect(() => readClusterKeyFile(file)).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(/readable or writable by others \(mode 644\)/),
        hint: `chmod 600 ${file}`,
      }),
    );
  });

  it('given a missing file or one that is not keys, refuses it naming the file', () => {
    expect(() => readClusterKeyFile('/nonexistent/cluster.key')).toThrow(/cannot be read: ENOENT/);
    const file = keyFile('password123\n');
    expect(() => readClusterKeyFile(file)).toThrow(`Line 1 of the cluster key file ${file} is not a key`);
  });
});

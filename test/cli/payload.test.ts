import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPayloadArgument } from '../../src/cli/payload.js';

describe('readPayloadArgument', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sched-payload-'));
    await writeFile(path.join(dir, 'payload.json'), '{"to":"ops"}\n');
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('given inline JSON, when read, then the text is returned as typed', async () => {
    await expect(readPayloadArgument('{"a":1}', dir)).resolves.toBe('{"a":1}');
  });

  it('given @file relative to the current directory, when read, then the file content is returned', async () => {
    await expect(readPayloadArgument('@payload.json', dir)).resolves.toBe('{"to":"ops"}\n');
  });

  it('given @file with an absolute path, when read, then the cwd is ignored', async () => {
    await expect(readPayloadArgument(`@${path.join(dir, 'payload.json')}`, '/')).resolves.toBe(
      '{"to":"ops"}\n',
    );
  });

  it('given @file that does not exist, when read, then it fails validation naming the absolute path', async () => {
    const missing = path.join(dir, 'missing.json');
    await expect(readPayloadArgument('@missing.json', dir)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: `Cannot read the payload file ${missing} (ENOENT).`,
      details: { path: missing, reason: 'ENOENT' },
    });
  });

  it('given a bare "@", when read, then it fails validation', async () => {
    await expect(readPayloadArgument('@', dir)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

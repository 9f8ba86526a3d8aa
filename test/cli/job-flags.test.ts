import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobFieldsFromFlags } from '../../src/cli/job-flags.js';

describe('jobFieldsFromFlags', () => {
  it('given schedule, target and meta flags, when turned into fields, then each lands in its JobInput field', async () => {
    const fields = await jobFieldsFromFlags(
      {
        every: '5m',
        tz: 'Europe/Berlin',
        timeout: '1m',
        env: ['A=1'],
        label: ['team=ops'],
        description: 'Ping',
        payload: '{}',
      },
      ['curl', '-fsS', 'localhost'],
      '/home/me',
    );
    expect(fields).toEqual({
      every: '5m',
      timezone: 'Europe/Berlin',
      timeout: '1m',
      env: { A: '1' },
      labels: { team: 'ops' },
      description: 'Ping',
      payload: '{}',
      argv: ['curl', '-fsS', 'localhost'],
    });
  });

  it('given a relative --cwd, when turned into fields, then it is resolved against the current directory', async () => {
    const fields = await jobFieldsFromFlags({ cwd: 'jobs/backup' }, undefined, '/home/me');
    expect(fields.cwd).toBe(path.resolve('/home/me', 'jobs/backup'));
  });

  it('given no flags, when turned into fields, then no field is present', async () => {
    expect(await jobFieldsFromFlags({}, undefined, '/')).toEqual({});
  });

  it('given both --shell and a command after "--", when turned into fields, then it fails validation', async () => {
    await expect(jobFieldsFromFlags({ shell: 'echo hi' }, ['echo', 'hi'], '/')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});

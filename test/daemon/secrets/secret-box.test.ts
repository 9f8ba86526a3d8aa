import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DefinitionSealer } from '../../../src/daemon/secrets/definition-sealer.js';
import { Keyring } from '../../../src/daemon/secrets/keyring.js';
import { SecretBox } from '../../../src/daemon/secrets/secret-box.js';
import { SecretKeys } from '../../../src/daemon/secrets/secret-keys.js';
import { sealedAlone } from '../../support/legacy-sealing.js';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../../support/fake-clock.js';
import { createJob, definition, newJob, stamp } from '../../store/conformance/fixtures.js';

describe('sealing secret values', () => {
  let dir: string;
  const clock = new FakeClock();
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-secrets-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const box = () => new SecretBox(Keyring.create(path.join(dir, 'secret.key'), clock), 'secret.key');

  it('Given values sealed twice for one job, when opened, then both give them back and the two sealed texts differ (a fresh nonce each)', () => {
    const secrets = box();
    const values = [{ where: 'env TOKEN', text: 's3cr3t' }];

    const [first] = secrets.sealTogether(values, 'job-1');
    const [second] = secrets.sealTogether(values, 'job-1');

    expect(first).not.toBe(second);
    expect(first).not.toContain('s3cr3t');
    expect([
      secrets.openTogether([{ where: 'env TOKEN', text: first! }], 'job-1'),
      secrets.openTogether([{ where: 'env TOKEN', text: second! }], 'job-1'),
    ]).toEqual([['s3cr3t'], ['s3cr3t']]);
  });

  it('Given a value sealed alone (v1) for one job, when opened for another, then SECRET_KEY_MISMATCH is thrown', () => {
    const secrets = box();
    const sealed = sealedAlone(secrets.keyring, 's3cr3t', 'job-1');

    expect(() => secrets.open(sealed, 'job-2')).toThrow(
      expect.objectContaining({ code: 'SECRET_KEY_MISMATCH' }),
    );
  });

  it('Given a key file created, when it is read, then it is 0600; made readable by others, it is refused', () => {
    const file = path.join(dir, 'secret.key');
    Keyring.create(file, clock);

    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    fs.chmodSync(file, 0o644);
    expect(() => Keyring.load(file, clock)).toThrow(/readable or writable by others/);
  });

  it('Given a rotation started, when values sealed under the old key are opened, then they still open until the old key is retired', () => {
    const secrets = box();
    const old = sealedAlone(secrets.keyring, 's3cr3t', 'job-1');

    const newId = secrets.keyring.addCurrent();
    expect(secrets.open(old, 'job-1')).toBe('s3cr3t');
    secrets.keyring.retireAllBut(newId);

    expect(() => secrets.open(old, 'job-1')).toThrow(/does not hold/);
    expect(Keyring.load(path.join(dir, 'secret.key'), clock)!.ids).toEqual([newId]);
  });

  it('Given a store with secrets written in plain text before sealing, when the keys start on it, then they are sealed and the job reads back the same', async () => {
    const store = openSqliteStore(path.join(dir, 'sched.db'));
    try {
      const plain = await createJob(store, 'legacy');
      const withEnv = await store.createJob(
        {
          ...newJob('legacy-env'),
          definition: definition('legacy-env', {
            target: { kind: 'command', argv: ['true'], shell: null, cwd: null, env: { TOKEN: 's3cr3t' } },
            payload: { p: 's3cr3t' },
          }),
        },
        stamp('job.create'),
      );
      const keys = new SecretKeys({ file: path.join(dir, 'secret.key'), store, clock, shared: false });

      await keys.start();

      const stored = (await store.findJob(withEnv.id))!;
      expect(JSON.stringify(stored.target)).not.toContain('s3cr3t');
      expect(stored.payload).toMatch(/^sealed:v2:/);
      expect(stored.version).toBe(withEnv.version);
      expect(keys.sealer.open(stored)).toEqual(withEnv);
      expect(await store.findJob(plain.id)).toEqual(plain);
    } finally {
      await store.close();
    }
  });

  it('Given a store of jobs of which one holds a secret in plain text, when the keys start on it without a key file, then only that job is read, and it is sealed', async () => {
    const store = openSqliteStore(path.join(dir, 'sched.db'));
    try {
      for (let index = 0; index < 5; index += 1) await createJob(store, `plain-${index}`);
      const withEnv = await store.createJob(
        {
          ...newJob('legacy-env'),
          definition: definition('legacy-env', {
            target: { kind: 'command', argv: ['true'], shell: null, cwd: null, env: { TOKEN: 's3cr3t' } },
          }),
        },
        stamp('job.create'),
      );
      const read: string[] = [];
      const reading = new Proxy(store, {
        get(target, property) {
          if (property === 'listJobs')
            return async (...args: Parameters<typeof store.listJobs>) => {
              const page = await target.listJobs(...args);
              read.push(...page.items.map((job) => job.name));
              return page;
            };
          const value: unknown = Reflect.get(target, property);
          return typeof value === 'function'
            ? (value as (...args: unknown[]) => unknown).bind(target)
            : value;
        },
      });
      const keys = new SecretKeys({
        file: path.join(dir, 'secret.key'),
        store: reading,
        clock,
        shared: false,
      });

      await keys.start();

      expect(new Set(read)).toEqual(new Set(['legacy-env']));
      const stored = (await store.findJob(withEnv.id))!;
      expect(JSON.stringify(stored.target)).not.toContain('s3cr3t');
      expect(keys.sealer.open(stored)).toEqual(withEnv);
    } finally {
      await store.close();
    }
  });

  const withSecrets = (name: string) =>
    definition(name, {
      target: {
        kind: 'command',
        argv: ['true'],
        shell: null,
        cwd: null,
        env: { TOKEN: 't0ken-é', PASSWORD: 'hunter2', EMPTY: '' },
      },
      payload: { to: 'ops@example.com', n: 3 },
    });

  it('Given a job with env values and a payload, when sealed, then every value is sealed together under one nonce and the job opens back the same', () => {
    const sealer = new DefinitionSealer(box());
    const plain = withSecrets('together');

    const sealed = sealer.seal(plain, 'job-1');

    const values = [
      ...Object.values((sealed.target as { env: Record<string, string> }).env),
      sealed.payload as string,
    ];
    expect(values.every((value) => value.startsWith('sealed:v2:'))).toBe(true);
    expect(new Set(values.map((value) => value.split(':')[3])).size).toBe(1);
    expect(JSON.stringify(sealed)).not.toMatch(/t0ken|hunter2|ops@example/);
    expect(sealer.open({ ...sealed, id: 'job-1' })).toEqual({ ...plain, id: 'job-1' });
  });

  it('Given values sealed together, when two are swapped, bytes moved between them, or the job is another, then they do not open', () => {
    const sealer = new DefinitionSealer(box());
    const sealed = sealer.seal(withSecrets('tampered'), 'job-1');
    const env = (sealed.target as { env: Record<string, string> }).env;
    const withEnv = (changed: Record<string, string>) => ({
      ...sealed,
      id: 'job-1',
      target: { ...sealed.target, env: changed },
    });
    const head = (value: string) => value.slice(0, value.lastIndexOf(':') + 1);
    const slice = (value: string) => Buffer.from(value.slice(value.lastIndexOf(':') + 1), 'base64url');
    const moved = Buffer.concat([slice(env.TOKEN!), slice(env.PASSWORD!)]);
    const shifted = {
      ...env,
      TOKEN: head(env.TOKEN!) + moved.subarray(0, 3).toString('base64url'),
      PASSWORD: head(env.PASSWORD!) + moved.subarray(3).toString('base64url'),
    };

    const mismatch = expect.objectContaining({ code: 'SECRET_KEY_MISMATCH' });
    expect(() => sealer.open(withEnv({ ...env, TOKEN: env.PASSWORD!, PASSWORD: env.TOKEN! }))).toThrow(
      mismatch,
    );
    expect(() => sealer.open(withEnv(shifted))).toThrow(mismatch);
    expect(() => sealer.open({ ...sealed, id: 'job-2' })).toThrow(mismatch);
  });

  it('Given a job holding values sealed one by one (v1) and plain ones, when opened, then each opens as before', () => {
    const secrets = box();
    const sealer = new DefinitionSealer(secrets);
    const stored = {
      ...withSecrets('legacy-v1'),
      id: 'job-1',
      target: {
        kind: 'command' as const,
        argv: ['true'],
        shell: null,
        cwd: null,
        env: { TOKEN: sealedAlone(secrets.keyring, 't0ken-é', 'job-1'), PLAIN: 'as stored' },
      },
      payload: sealedAlone(secrets.keyring, JSON.stringify({ n: 1 }), 'job-1'),
    };

    const opened = sealer.open(stored);

    expect(opened.target).toMatchObject({ env: { TOKEN: 't0ken-é', PLAIN: 'as stored' } });
    expect(opened.payload).toEqual({ n: 1 });
    expect(sealer.needsResealing(stored)).toBe(true);
  });

  it('Given a definition with no secret, when sealed, then it is the very same object (nothing to do on the hot path)', () => {
    const sealer = new DefinitionSealer(box());
    const plain = definition('plain');

    expect(sealer.seal(plain, 'job-1')).toBe(plain);
  });

  it('Given a store whose key was claimed by a start that stopped before sealing, when started again, then the plain secrets are sealed and the key recorded as complete; the start after reads no job', async () => {
    const store = openSqliteStore(path.join(dir, 'sched.db'));
    try {
      const plain = await store.createJob(
        {
          ...newJob('legacy-env'),
          definition: definition('legacy-env', {
            target: { kind: 'command', argv: ['true'], shell: null, cwd: null, env: { TOKEN: 's3cr3t' } },
          }),
        },
        stamp('job.create'),
      );
      const file = path.join(dir, 'secret.key');
      const keyId = Keyring.create(file, clock).current().id;
      await store.recordSecretKeyId(`${keyId}?`, null);
      let listed = 0;
      const counting = new Proxy(store, {
        get: (target, property, receiver) =>
          property === 'listJobs'
            ? (...args: Parameters<typeof store.listJobs>) => (listed++, target.listJobs(...args))
            : Reflect.get(target, property, receiver),
      });

      await new SecretKeys({ file, store: counting, clock, shared: false }).start();
      const afterFirst = listed;
      await new SecretKeys({ file, store: counting, clock, shared: false }).start();

      expect(JSON.stringify((await store.findJob(plain.id))!.target)).not.toContain('s3cr3t');
      expect(await store.secretKeyId()).toBe(keyId);
      expect(afterFirst).toBeGreaterThan(0);
      expect(listed).toBe(afterFirst);
    } finally {
      await store.close();
    }
  });
});

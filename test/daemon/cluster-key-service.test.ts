import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeClusterKeyFile } from '../../src/cluster/peer/cluster-key-file.js';
import { clusterKeyFingerprint } from '../../src/cluster/peer/cluster-key-fingerprint.js';
import { MessageSeal } from '../../src/cluster/peer/message-seal.js';
import { PeerKeyring } from '../../src/cluster/peer/peer-keyring.js';
import { systemClock } from '../../src/daemon/clock.js';
import { ClusterKeyService } from '../../src/daemon/cluster/cluster-key-service.js';
import type { AuditEntry, Store } from '../../src/store/store.js';
import { newKey, ring } from '../cluster/peer/peer-test-kit.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A node's keyring on a real key file, with the two seals peer mode keeps, and the service over it. */
function keyService(options: { file?: string; appendAudit?: (entry: AuditEntry) => Promise<void> } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-keys-'));
  dirs.push(dir);
  const old = newKey();
  const file = options.file ?? path.join(dir, 'cluster.key');
  if (options.file === undefined) writeClusterKeyFile(file, ring(old));
  const seals = [new MessageSeal(ring(old)), new MessageSeal(ring(old))];
  const keyring = new PeerKeyring(file, ring(old), seals);
  const audit: AuditEntry[] = [];
  const errors: Error[] = [];
  const store = {
    appendAudit: options.appendAudit ?? (async (entry: AuditEntry) => void audit.push(entry)),
  } as unknown as Store;
  const service = new ClusterKeyService({
    keyring,
    store,
    clock: systemClock,
    newId: () => 'audit-1',
    onChanged: () => undefined,
    onError: (error) => errors.push(error),
  });
  return { service, keyring, seals, file, old, audit, errors };
}

describe('changing the cluster keyring of a node', () => {
  it('Given a new key installed and used, then both seals seal with it at once, the file holds it first, and the audit names fingerprints only', async () => {
    const { service, seals, file, old, audit } = keyService();
    const next = newKey();

    await service.install({ key: next }, 'root (uid 0)');
    await service.use({ key: next }, 'root (uid 0)');

    expect(fs.readFileSync(file, 'utf8')).toBe(`${next}\n${old}\n`);
    const onlyNext = new MessageSeal(ring(next));
    for (const seal of seals)
      expect(onlyNext.open(seal.seal(Buffer.from('hi'), 'swim'), 'swim')).not.toBeNull();
    expect(audit.map((entry) => entry.after)).toEqual([
      { key: clusterKeyFingerprint(next), keys: [clusterKeyFingerprint(old), clusterKeyFingerprint(next)] },
      { key: clusterKeyFingerprint(next), keys: [clusterKeyFingerprint(next), clusterKeyFingerprint(old)] },
    ]);
    expect(JSON.stringify(audit)).not.toContain(next);
    expect(JSON.stringify(audit)).not.toContain(old);
  });

  it('Given a key file that cannot be written, then the change is refused as INVALID_STATE and the ring and seals are as they were', async () => {
    const missingFolder = path.join(os.tmpdir(), `sched-no-such-${process.pid}`, 'cluster.key');
    const { service, keyring, seals, old } = keyService({ file: missingFolder });

    await expect(service.install({ key: newKey() }, 'root (uid 0)')).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringMatching(/could not be written.*the keyring is as it was/),
    });
    expect(keyring.ring.keys).toEqual([old]);
    const onlyOld = new MessageSeal(ring(old));
    for (const seal of seals)
      expect(onlyOld.open(seal.seal(Buffer.from('hi'), 'stream'), 'stream')).not.toBeNull();
  });

  it('Given an audit entry that cannot be written (no majority), then the change stands and the failure is reported', async () => {
    const { service, keyring, errors } = keyService({
      appendAudit: async () => {
        throw new Error('no quorum');
      },
    });
    const next = newKey();

    const change = await service.install({ key: next }, 'root (uid 0)');

    expect(change.changed).toBe(true);
    expect(keyring.ring.keys).toContain(next);
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringMatching(/audit entry could not be written: no quorum/),
    ]);
  });
});

import { SchedError } from '../../core/errors.js';
import type { KeyRotationResult } from '../../ipc/protocol.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DefinitionSealer } from './definition-sealer.js';
import { resealAll } from './reseal.js';

/** Long enough for every daemon sharing the key file to see the new key before anything is re-sealed. */
const SHARED_FILE_SETTLE_MS = 2_500;
const MAX_PASSES = 5;

export interface KeyRotationDeps {
  /** The store as written (sealed values), not the daemon's opened view of it. */
  store: Store;
  sealer: DefinitionSealer;
  clock: Clock;
  newId: () => string;
  /** Writes under way that sealed with the key current when they began. */
  writes: Set<Promise<unknown>>;
  /** Other daemons share the store (and so the key file). */
  shared: boolean;
}

/**
 * `sched key rotate`, while the daemon goes on firing: a new key becomes the current one (new values are
 * sealed under it at once) while the old ones stay in the file; every stored secret is then re-sealed
 * under the new key, job by job, and only once a pass finds nothing left under an old key are the old
 * keys dropped from the file. Stopped half way, the file still holds both, and the next start or rotation
 * finishes the job. Audit images and outbox events sealed under an old key are never opened again (they
 * are only ever shown masked), so dropping the key leaves them sealed for good.
 */
export class KeyRotation {
  private running = false;

  constructor(private readonly deps: KeyRotationDeps) {}

  async rotate(actor: string, { sharedFile }: { sharedFile: boolean }): Promise<KeyRotationResult> {
    // With copies of the file, the other daemons would meet values under a key they do not have.
    if (this.deps.shared && !sharedFile)
      throw new SchedError(
        'INVALID_STATE',
        'Other daemons share this store: a rotation needs them to read the same key file as this one.',
        {
          hint: 'If every daemon reads one key file (shared storage, the key_file setting), run `sched key rotate --shared-file`. With copies of the file: stop the other daemons, rotate here with --shared-file, and copy the new file to them before they start.',
        },
      );
    if (this.running)
      throw new SchedError('INVALID_STATE', 'A key rotation is under way already.', {
        hint: 'Wait for it to finish (`sched audit` shows key.rotate when it has).',
      });
    this.running = true;
    try {
      return await this.rotateOnce(actor);
    } finally {
      this.running = false;
    }
  }

  private async rotateOnce(actor: string): Promise<KeyRotationResult> {
    const { store, sealer, clock, writes } = this.deps;
    const keyring = sealer.box.keyring;
    const previous = keyring.ids;
    const key = keyring.addCurrent();
    // A write that sealed under the old key and commits after the pass read its job would keep it.
    await Promise.allSettled([...writes]);
    if (this.deps.shared)
      await new Promise<void>((resolve) => clock.setTimer(SHARED_FILE_SETTLE_MS, resolve));
    let jobs = 0;
    let resealed = 0;
    for (let pass = 1; ; pass += 1) {
      const done = await resealAll(store, sealer);
      jobs = done.jobs;
      resealed += done.resealed;
      if (done.resealed === 0 && done.left === 0) break;
      if (pass === MAX_PASSES)
        throw new SchedError(
          'INVALID_STATE',
          `${done.left} jobs kept changing while their secrets were re-sealed.`,
          {
            hint: 'Run `sched key rotate` again; the key file keeps the old key until a rotation completes.',
          },
        );
    }
    // Recorded before the old key leaves the file: stopped in between, the file still opens what the store names.
    await this.recordKey(key);
    const retired = previous.filter((id) => id !== key);
    keyring.retireAllBut(key);
    const at = clock.now();
    await store.appendAudit({
      id: this.deps.newId(),
      at,
      actor,
      action: 'key.rotate',
      jobId: null,
      before: { keys: previous },
      after: { key, resealed },
    });
    return { key, retired, jobs, resealed };
  }

  private async recordKey(key: string): Promise<void> {
    const { store } = this.deps;
    for (let attempt = 0; attempt < 3; attempt += 1)
      if (await store.recordSecretKeyId(key, await store.secretKeyId())) return;
    throw new SchedError(
      'INVALID_STATE',
      'The store’s key changed three times while this rotation recorded its own.',
      {
        hint: 'Another daemon is rotating the key too; run `sched key rotate` again once it is done.',
      },
    );
  }
}

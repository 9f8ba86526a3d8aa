import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { Service } from '../service.js';
import { DefinitionSealer } from './definition-sealer.js';
import { Keyring } from './keyring.js';
import { keysInUse, resealAll } from './reseal.js';
import { SecretBox } from './secret-box.js';
import { SchedError } from '../../core/errors.js';

/**
 * The key file and what it seals, checked before anything reads a job: every key the stored secrets are
 * sealed under must be in the file, or the daemon refuses to start (a copied database without its key, or
 * a federation node with another key file) instead of running jobs with values it cannot read. The file is
 * created on the first start of a store that holds no sealed secret; secrets stored in plain text by an
 * older sched are sealed then.
 */
export class SecretKeys implements Service {
  readonly name = 'secret keys';
  private opened: DefinitionSealer | null = null;

  constructor(
    private readonly file: string,
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  get sealer(): DefinitionSealer {
    if (!this.opened) throw new Error('the secret keys are read at start');
    return this.opened;
  }

  async start(): Promise<void> {
    const { keys, plainJobs } = await keysInUse(this.store);
    let keyring = Keyring.load(this.file, this.clock);
    if (keyring === null) {
      const [keyId, jobId] = [...keys][0] ?? [];
      if (keyId !== undefined)
        throw new SchedError(
          'SECRET_KEY_MISMATCH',
          `The store holds secrets sealed under key ${keyId} (job ${jobId}), and there is no key file at ${this.file}.`,
          {
            hint: `Put the key file this store was written with at ${this.file} (or point the key_file setting at it), mode 0600.`,
            details: { keyId, jobId, keyFile: this.file },
          },
        );
      keyring = Keyring.create(this.file, this.clock);
    }
    const box = new SecretBox(keyring, this.file);
    for (const [keyId, jobId] of keys)
      if (keyring.find(keyId) === undefined) throw box.missingKey(jobId, keyId);
    this.opened = new DefinitionSealer(box);
    const current = keyring.current().id;
    if (plainJobs > 0 || [...keys.keys()].some((id) => id !== current))
      await resealAll(this.store, this.opened);
  }

  async stop(): Promise<void> {}
}

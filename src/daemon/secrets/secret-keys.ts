import { SchedError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { Service } from '../service.js';
import { DefinitionSealer } from './definition-sealer.js';
import { Keyring } from './keyring.js';
import { keysInUse, resealAll } from './reseal.js';
import { SecretBox } from './secret-box.js';

export interface SecretKeysOptions {
  file: string;
  /** The store as written (sealed values). */
  store: Store;
  clock: Clock;
  /** Other daemons may share the store (PostgreSQL), and must then share the key file too. */
  shared: boolean;
  /** Runs the start's reading and recording, again while it must (a peer waits for a majority to write). */
  attempt?: (open: () => Promise<void>) => Promise<void>;
}

/**
 * The key file and what it seals, checked before anything reads a job. The store records the id of the key
 * its secrets are sealed under (the first daemon to start on it records its own); a daemon whose key file
 * holds neither that key nor every key the stored secrets name refuses to start (a copied database without
 * its key, a federation node with another key file) instead of running jobs with values it cannot read.
 * The file is created on the first start of a store that needs no other key; secrets stored in plain text
 * by an older sched, or left under an old key by an interrupted rotation, are re-sealed then.
 */
export class SecretKeys implements Service {
  readonly name = 'secret keys';
  private opened: DefinitionSealer | null = null;

  constructor(private readonly options: SecretKeysOptions) {}

  get sealer(): DefinitionSealer {
    if (!this.opened) throw new Error('the secret keys are read at start');
    return this.opened;
  }

  async start(): Promise<void> {
    const { attempt = (open) => open() } = this.options;
    // Each attempt reads everything again: one refused half way leaves what it did to be found.
    await attempt(() => this.open());
  }

  private async open(): Promise<void> {
    const { file, store, clock, shared } = this.options;
    const stored = await store.secretKeyId();
    let keyring = Keyring.load(file, clock);
    // The store names this file's only key as complete: every secret is sealed under it, nothing to read.
    if (keyring !== null && keyring.ids.length === 1 && stored === keyring.current().id) {
      this.opened = new DefinitionSealer(new SecretBox(keyring, file));
      return;
    }
    const recorded = stored === null ? null : keyIdOf(stored);
    const { keys, plainJobs } = await keysInUse(store);
    if (keyring === null) {
      const [keyId, jobId] = [...keys][0] ?? [shared ? recorded : null, null];
      if (keyId !== undefined && keyId !== null) throw noKeyFile(file, keyId, jobId);
      keyring = Keyring.create(file, clock);
    }
    const box = new SecretBox(keyring, file);
    for (const [keyId, jobId] of keys)
      if (keyring.find(keyId) === undefined) throw box.missingKey(jobId, keyId);
    await this.agreeOnKey(keyring, recorded, keys.size > 0);
    this.opened = new DefinitionSealer(box);
    const current = keyring.current().id;
    if (plainJobs > 0 || [...keys.keys()].some((id) => id !== current)) await resealAll(store, this.opened);
    // Only now, with nothing left plain or under another key, may a start skip the reading above.
    const now = await store.secretKeyId();
    if (now === pending(current)) await store.recordSecretKeyId(current, now);
  }

  async stop(): Promise<void> {}

  /** Records this file's key as the store's when none is; refuses a file that lacks the one recorded. */
  private async agreeOnKey(keyring: Keyring, recorded: string | null, sealedAny: boolean): Promise<void> {
    const { store, file, shared } = this.options;
    const current = keyring.current().id;
    let agreed = recorded;
    if (agreed === null) {
      if (await store.recordSecretKeyId(pending(current), null)) return;
      const now = await store.secretKeyId();
      agreed = now === null ? null : keyIdOf(now);
    }
    if (agreed === null || keyring.find(agreed) !== undefined) return;
    // One daemon's own store with nothing sealed in it: this file's key may simply take over.
    const stored = await store.secretKeyId();
    if (!shared && !sealedAny && (await store.recordSecretKeyId(pending(current), stored))) return;
    throw new SchedError(
      'SECRET_KEY_MISMATCH',
      `This store's secrets are sealed under key ${agreed}, which ${file} does not hold.`,
      {
        hint: 'Every daemon sharing a store needs the same key file: copy the one the other daemons use (or point the key_file setting at it), mode 0600.',
        details: { keyId: agreed, keyFile: file },
      },
    );
  }
}

/**
 * The store's key is recorded `<id>?` from the start that claims it until every secret is sealed under
 * it (older versions stored them plain), then `<id>`: a start that stopped in between reads them again.
 */
function pending(keyId: string): string {
  return `${keyId}?`;
}

function keyIdOf(recorded: string): string {
  return recorded.endsWith('?') ? recorded.slice(0, -1) : recorded;
}

function noKeyFile(file: string, keyId: string, jobId: string | null): SchedError {
  const of = jobId === null ? '' : ` (job ${jobId})`;
  return new SchedError(
    'SECRET_KEY_MISMATCH',
    `The store holds secrets sealed under key ${keyId}${of}, and there is no key file at ${file}.`,
    {
      hint: `Put the key file this store was written with at ${file} (or point the key_file setting at it), mode 0600.`,
      details: { keyId, jobId, keyFile: file },
    },
  );
}

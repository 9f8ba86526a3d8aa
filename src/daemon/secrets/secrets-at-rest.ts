import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { ServiceStack } from '../service-stack.js';
import { KeyRotation } from './key-rotation.js';
import { sealSecretsOf } from './sealed-store.js';
import { SecretKeys } from './secret-keys.js';

export interface SecretsAtRestDeps {
  keyFile: string;
  /** The store as written: sealed values in, sealed values out. */
  store: Store;
  clock: Clock;
  newId: () => string;
  /** Other daemons share the store, and so must share the key file. */
  shared: boolean;
  /** See SecretKeysOptions.attempt. */
  attempt?: (open: () => Promise<void>) => Promise<void>;
}

/**
 * Secrets at rest as the daemon runs them: the key file, opened before anything reads a job (a store
 * whose secrets it cannot open stops the start), the store as the daemon sees it (secrets opened on the
 * way out, sealed on the way in), and `sched key rotate`, which waits for the sealing writes under way.
 */
export async function openSecretsAtRest(
  stack: ServiceStack,
  deps: SecretsAtRestDeps,
): Promise<{ store: Store; rotation: KeyRotation }> {
  const { keyFile, store, clock, newId, shared, attempt } = deps;
  const { sealer } = await stack.start(new SecretKeys({ file: keyFile, store, clock, shared, attempt }));
  const writes = new Set<Promise<unknown>>();
  return {
    store: sealSecretsOf(store, sealer, writes),
    rotation: new KeyRotation({ store, sealer, clock, newId, writes, shared }),
  };
}

import { clusterKeyFingerprint } from '../../cluster/peer/cluster-key-fingerprint.js';
import type { PeerKeyring } from '../../cluster/peer/peer-keyring.js';
import {
  installKey,
  MAX_CLUSTER_KEYS,
  removeKey,
  useKey,
  type ClusterKeyring,
} from '../../core/peer/cluster-keyring.js';
import { SchedError } from '../../core/errors.js';
import type { ClusterKeyChange, ClusterKeyringView, ParsedParams } from '../../ipc/protocol.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';

export interface ClusterKeyServiceDeps {
  /** This node's keyring; null when the daemon is not in peer mode. */
  keyring: PeerKeyring | null;
  store: Store;
  clock: Clock;
  newId: () => string;
  /** A change made, for the log (fingerprints only, as everywhere). */
  onChanged: (change: ClusterKeyChange) => void;
  onError: (error: Error) => void;
}

type KeyRule = (ring: ClusterKeyring, key: string) => ClusterKeyring;
const RULES: Record<ClusterKeyChange['action'], KeyRule> = {
  install: installKey,
  use: useKey,
  remove: removeKey,
};

/**
 * `sched cluster keys`: this host's cluster keyring, shown as fingerprints and changed by core's rules. A
 * change is made whole (key file, then both seals) or refused with nothing changed. The key itself goes
 * nowhere but the key file: replies, the log and the audit name it by its fingerprint.
 */
export class ClusterKeyService {
  constructor(private readonly deps: ClusterKeyServiceDeps) {}

  async list(): Promise<ClusterKeyringView> {
    return view(this.peerKeyring());
  }

  /** `actor`: who the audit log names for the change. */
  install(params: ParsedParams<'cluster.keys.install'>, actor: string): Promise<ClusterKeyChange> {
    return this.change('install', params.key, actor);
  }

  use(params: ParsedParams<'cluster.keys.use'>, actor: string): Promise<ClusterKeyChange> {
    return this.change('use', params.key, actor);
  }

  remove(params: ParsedParams<'cluster.keys.remove'>, actor: string): Promise<ClusterKeyChange> {
    return this.change('remove', params.key, actor);
  }

  private async change(
    action: ClusterKeyChange['action'],
    key: string,
    actor: string,
  ): Promise<ClusterKeyChange> {
    const keyring = this.peerKeyring();
    const before = keyring.ring;
    // Core's rules refuse (the primary removed, a key used before it is installed, a 17th key) by throwing.
    const next = RULES[action](before, key);
    const changed = !sameKeys(before, next);
    if (changed) replaceOrRefuse(keyring, next);
    const result: ClusterKeyChange = {
      ...view(keyring),
      action,
      fingerprint: clusterKeyFingerprint(key),
      changed,
    };
    if (changed) {
      this.deps.onChanged(result);
      await this.audit(result, before, actor);
    }
    return result;
  }

  /** The change is made whatever becomes of its audit entry: a node without a majority can write none. */
  private async audit(change: ClusterKeyChange, before: ClusterKeyring, actor: string): Promise<void> {
    const { store, clock, newId } = this.deps;
    try {
      await store.appendAudit({
        id: newId(),
        at: clock.now(),
        actor,
        action: `cluster.keys.${change.action}`,
        jobId: null,
        before: { keys: before.keys.map(clusterKeyFingerprint) },
        after: { key: change.fingerprint, keys: change.keys.map((entry) => entry.fingerprint) },
      });
    } catch (error) {
      this.deps.onError(
        new Error(
          `the cluster keyring was changed (${change.action} ${change.fingerprint}) but its audit entry could not be written: ${(error as Error).message}`,
        ),
      );
    }
  }

  private peerKeyring(): PeerKeyring {
    if (this.deps.keyring !== null) return this.deps.keyring;
    throw new SchedError(
      'INVALID_STATE',
      'This daemon is not in peer mode: cluster keys seal the traffic between daemons started with --peers.',
      {
        hint: 'A daemon on its own or in a PostgreSQL federation has no cluster key. Peer mode is `sched daemon run --peers HOST:PORT,... --bind HOST:PORT --cluster-key-file FILE`.',
      },
    );
  }
}

function view(keyring: PeerKeyring): ClusterKeyringView {
  const { keys } = keyring.ring;
  return {
    keyFile: keyring.file,
    keys: keys.map((key, index) => ({ fingerprint: clusterKeyFingerprint(key), primary: index === 0 })),
    count: keys.length,
    max: MAX_CLUSTER_KEYS,
  };
}

function sameKeys(a: ClusterKeyring, b: ClusterKeyring): boolean {
  return a.keys.length === b.keys.length && a.keys.every((key, index) => key === b.keys[index]);
}

function replaceOrRefuse(keyring: PeerKeyring, next: ClusterKeyring): void {
  try {
    keyring.replace(next);
  } catch (error) {
    throw new SchedError(
      'INVALID_STATE',
      `The cluster key file ${keyring.file} could not be written (${(error as Error).message}); the keyring is as it was.`,
      {
        hint: 'The daemon writes a temporary file beside the key file and renames it over it: let the daemon’s user write that folder.',
        details: { keyFile: keyring.file },
      },
    );
  }
}

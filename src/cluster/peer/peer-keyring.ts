import type { ClusterKeyring } from '../../core/peer/cluster-keyring.js';
import { writeClusterKeyFile } from './cluster-key-file.js';
import type { MessageSeal } from './message-seal.js';

/**
 * The keyring a peer daemon seals and opens its traffic with, as it stands now: the key file it was read
 * from and every seal that uses it (the streams' and the datagrams'). A change reaches the file first and
 * then every seal, in one turn of the event loop, so no message is sealed or opened under a ring the file
 * does not hold, and a restart keeps the change.
 */
export class PeerKeyring {
  constructor(
    readonly file: string,
    private current: ClusterKeyring,
    private readonly seals: readonly MessageSeal[],
  ) {}

  get ring(): ClusterKeyring {
    return this.current;
  }

  /** Writes `next` to the key file (atomically) and then gives it to every seal; throws with nothing changed. */
  replace(next: ClusterKeyring): void {
    writeClusterKeyFile(this.file, next);
    this.current = next;
    for (const seal of this.seals) seal.rekey(next);
  }
}

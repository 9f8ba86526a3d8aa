import type { ClusterKeyringView } from '../../ipc/protocol.js';
import { renderTable } from './table.js';

/** A host's cluster keyring as fingerprints, the primary first, and how full it is. */
export function renderClusterKeyring(ring: ClusterKeyringView): string {
  const table = renderTable(
    [{ header: 'KEY' }, { header: 'PRIMARY' }],
    ring.keys.map((key) => [key.fingerprint, key.primary ? 'yes' : '']),
  );
  const count = `${ring.count} ${ring.count === 1 ? 'key' : 'keys'} of at most ${ring.max}, in ${ring.keyFile}`;
  return `${table}\n${count}`;
}

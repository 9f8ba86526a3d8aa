import fs from 'node:fs';
import path from 'node:path';
import { SchedError } from '../../core/errors.js';
import { formatKeyFile, parseKeyFile, type ClusterKeyring } from '../../core/peer/cluster-keyring.js';

/**
 * The cluster keyring on disk (`--cluster-key-file`, `[cluster] key_file`): read at start, written back
 * after `sched cluster keys install|use|remove` so a restart keeps the rotation where it stands. It holds
 * the keys to every member's traffic, so a file others may read or write is refused.
 */
export function readClusterKeyFile(file: string): ClusterKeyring {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw new SchedError(
      'VALIDATION_FAILED',
      `The cluster key file ${file} cannot be read: ${(error as Error).message}.`,
      {
        hint: 'Make one with `sched cluster keygen > <file>` (chmod 600), and copy the same file to every host.',
        details: { keyFile: file },
      },
    );
  }
  if ((stat.mode & 0o077) !== 0)
    throw new SchedError(
      'VALIDATION_FAILED',
      `The cluster key file ${file} is readable or writable by others (mode ${(stat.mode & 0o777).toString(8)}).`,
      { hint: `chmod 600 ${file}`, details: { keyFile: file } },
    );
  return parseKeyFile(fs.readFileSync(file, 'utf8'), file);
}

/** Written whole to a temporary file (0600) and renamed over the old one, so no reader sees half a ring. */
export function writeClusterKeyFile(file: string, ring: ClusterKeyring): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const fd = fs.openSync(temporary, 'w', 0o600);
  try {
    try {
      fs.fchmodSync(fd, 0o600);
      fs.writeSync(fd, formatKeyFile(ring));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    // A failed write leaves the old file as it was, and no copy of the keys beside it.
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

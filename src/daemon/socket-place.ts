import fs from 'node:fs';
import path from 'node:path';
import { SchedError } from '../core/errors.js';

const GROUP_AND_OTHERS_WRITE = 0o022;
const STICKY = 0o1000;

/**
 * Makes the socket's folder if it is missing, with only the rights the socket mode needs: the owner's, and
 * passage (x) for the classes the socket admits. A folder made for a socket group is given to that group.
 */
export function prepareSocketFolder(socketPath: string, mode: number, gid: number | null): void {
  const folder = path.dirname(socketPath);
  if (!fs.existsSync(folder)) {
    const passage = (mode & 0o070 ? 0o010 : 0) | (mode & 0o007 ? 0o001 : 0);
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (gid !== null) fs.chownSync(folder, process.getuid!(), gid);
    // Exactly this mode, whatever the umask took away.
    fs.chmodSync(folder, 0o700 | passage);
  }
  checkFolder(folder);
}

/** A folder others may write in could have the socket swapped under the daemon, unless it is sticky (/tmp). */
function checkFolder(folder: string): void {
  const stat = fs.statSync(folder);
  const mine = stat.uid === process.getuid!() || stat.uid === 0;
  const shared = (stat.mode & GROUP_AND_OTHERS_WRITE) !== 0 && (stat.mode & STICKY) === 0;
  if (!mine || shared) {
    const why = !mine ? `it belongs to uid ${stat.uid}` : `others may write in it (mode ${octal(stat.mode)})`;
    throw new SchedError('VALIDATION_FAILED', `The socket's folder ${folder} is not safe: ${why}.`, {
      hint: 'Put the socket in a folder of the daemon’s user (or root) that only they can write in: `socket` in config.toml or SCHED_SOCKET.',
      details: { folder, uid: stat.uid, mode: octal(stat.mode) },
    });
  }
}

/**
 * What is at the socket's path before the daemon binds it: nothing, or a socket the daemon's user left. A
 * symlink, another user's file or anything but a socket is refused, never removed or followed.
 */
export function checkSocketPath(socketPath: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const problem = stat.isSymbolicLink()
    ? 'it is a symbolic link'
    : stat.uid !== process.getuid!()
      ? `it belongs to uid ${stat.uid}, not to the daemon's user (uid ${process.getuid!()})`
      : !stat.isSocket()
        ? 'it is not a socket'
        : null;
  if (problem === null) return;
  throw new SchedError('VALIDATION_FAILED', `Refusing the socket path ${socketPath}: ${problem}.`, {
    hint: 'Remove it if it is yours to remove, or give the daemon another socket path (`socket` in config.toml or SCHED_SOCKET).',
    details: { socketPath },
  });
}

/** The group `socket_group` names, by name or number. */
export function socketGroupId(group: string | number, groupIdOf: (name: string) => number | null): number {
  if (typeof group === 'number') return group;
  const gid = /^\d+$/.test(group) ? Number(group) : groupIdOf(group);
  if (gid !== null) return gid;
  throw new SchedError(
    'VALIDATION_FAILED',
    `socket_group names the group "${group}", which does not exist.`,
    {
      hint: `Create it (\`groupadd ${group}\`) or name an existing group.`,
      details: { group },
    },
  );
}

export function octal(mode: number): string {
  return `0${(mode & 0o7777).toString(8)}`;
}

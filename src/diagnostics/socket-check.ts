import fs from 'node:fs';
import { failure, pass, START_FIX, type Check } from './check.js';

/** `socketMode`: the mode the config gives the socket (`socket_mode`); more than that is a fault. */
export function socketCheck(socket: string, socketMode = 0o600): Check {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socket);
  } catch {
    return failure('socket', `nothing at ${socket}`, START_FIX);
  }
  if (!stat.isSocket())
    return failure('socket', `${socket} is not a socket`, `Remove it, then start the daemon. ${START_FIX}`);
  const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
  const uid = process.getuid?.() ?? stat.uid;
  const configured = (socketMode & 0o777).toString(8).padStart(4, '0');
  if ((stat.mode & 0o777 & ~socketMode) !== 0)
    return failure(
      'socket',
      `${socket} has mode ${mode}, so other users can send the daemon requests`,
      `chmod ${configured.slice(1)} ${socket} (the daemon sets ${configured}, its socket_mode, when it starts; restart it).`,
    );
  const shared = (socketMode & 0o077) !== 0;
  if (stat.uid !== uid && uid !== 0 && !shared)
    return failure(
      'socket',
      `${socket} belongs to uid ${stat.uid}, not to you (uid ${uid})`,
      'Run sched as that user, or point SCHED_SOCKET (or socket in config.toml) at your own daemon.',
    );
  const sharedNote = shared ? ` (socket_mode: others reach it, [access] decides what they may do)` : '';
  return pass('socket', `${socket}, mode ${mode}, owner uid ${stat.uid}${sharedNote}`);
}

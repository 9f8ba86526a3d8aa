import fs from 'node:fs';
import { failure, pass, START_FIX, type Check } from './check.js';

export function socketCheck(socket: string): Check {
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
  if ((stat.mode & 0o077) !== 0)
    return failure(
      'socket',
      `${socket} has mode ${mode}, so other users can send the daemon requests`,
      `chmod 600 ${socket} (the daemon sets 0600 when it starts; restart it).`,
    );
  if (stat.uid !== uid && uid !== 0)
    return failure(
      'socket',
      `${socket} belongs to uid ${stat.uid}, not to you (uid ${uid})`,
      'Run sched as that user, or point SCHED_SOCKET (or socket in config.toml) at your own daemon.',
    );
  return pass('socket', `${socket}, mode ${mode}, owner uid ${stat.uid}`);
}

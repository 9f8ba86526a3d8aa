import os from 'node:os';
import path from 'node:path';

/** Where a daemon keeps its files. `SCHED_HOME` puts everything in one folder (tests, power users). */
export interface Locations {
  home: string;
  socketPath: string;
  databasePath: string;
  lockPath: string;
}

export function resolveLocations(env: NodeJS.ProcessEnv): Locations {
  if (env.SCHED_HOME) {
    const home = path.resolve(env.SCHED_HOME);
    return {
      home,
      socketPath: env.SCHED_SOCKET ?? path.join(home, 'sched.sock'),
      databasePath: path.join(home, 'sched.db'),
      lockPath: path.join(home, 'daemon.lock'),
    };
  }
  const dataHome = env.XDG_DATA_HOME ?? path.join(os.homedir(), '.local', 'share');
  const home = path.join(dataHome, 'sched');
  const runtimeDir = env.XDG_RUNTIME_DIR ?? home;
  return {
    home,
    socketPath: env.SCHED_SOCKET ?? path.join(runtimeDir, 'sched.sock'),
    databasePath: path.join(home, 'sched.db'),
    lockPath: path.join(home, 'daemon.lock'),
  };
}

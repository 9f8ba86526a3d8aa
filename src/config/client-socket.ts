import { resolveLocations } from '../ipc/locations.js';
import { readConfigFile } from './file.js';

/**
 * The socket a client command connects to: SCHED_SOCKET, else `socket` in config.toml, else the default
 * for this SCHED_HOME. The config is validated (zod, time zone data) only when there is a file to read,
 * so the common case costs a client no more than a stat.
 */
export async function clientSocketPath(env: Readonly<Record<string, string | undefined>>): Promise<string> {
  if (env.SCHED_SOCKET) return env.SCHED_SOCKET;
  const file = readConfigFile(env);
  if (file === null) return resolveLocations(env).socketPath;
  const [{ resolveConfig }, { hostDefaults }] = await Promise.all([
    import('./resolve.js'),
    import('./load.js'),
  ]);
  return resolveConfig({ env, flags: {}, file, host: hostDefaults(env) }).socket;
}

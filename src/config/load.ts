import { resolveLocations } from '../ipc/locations.js';
import { readConfigFile } from './file.js';
import type { FlagValues, HostDefaults } from './keys.js';
import { resolveConfig, type ResolvedConfig } from './resolve.js';

/** Defaults that depend on this host: its zone and where a daemon of this SCHED_HOME keeps its files. */
export function hostDefaults(env: Readonly<Record<string, string | undefined>>): HostDefaults {
  // The socket default must not already include SCHED_SOCKET: that is the environment layer.
  const locations = resolveLocations({ ...env, SCHED_SOCKET: undefined });
  return {
    store: `sqlite:${locations.databasePath}`,
    socket: locations.socketPath,
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}

/** Reads the config file (if any) and resolves every setting against `env` and `flags`. */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
  flags: FlagValues = {},
): ResolvedConfig {
  return resolveConfig({ env, flags, file: readConfigFile(env), host: hostDefaults(env) });
}

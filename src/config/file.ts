import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SchedError } from '../core/errors.js';

export const SYSTEM_CONFIG_PATH = '/etc/sched/config.toml';

/**
 * Where config.toml may be, first match wins: `SCHED_CONFIG` (which must exist), then the user's
 * `$XDG_CONFIG_HOME/sched/config.toml` (default ~/.config), then `/etc/sched/config.toml`. A SCHED_HOME
 * holds everything of its daemon, its config too: with one set, only `$SCHED_HOME/config.toml` counts,
 * so a test or a second daemon never picks up the settings (the socket!) of the user's own daemon.
 */
export function configFileCandidates(
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string,
): { explicit: boolean; paths: string[] } {
  if (env.SCHED_CONFIG) return { explicit: true, paths: [path.resolve(env.SCHED_CONFIG)] };
  if (env.SCHED_HOME)
    return { explicit: false, paths: [path.join(path.resolve(env.SCHED_HOME), 'config.toml')] };
  const configHome = env.XDG_CONFIG_HOME || path.join(homeDir, '.config');
  return { explicit: false, paths: [path.join(configHome, 'sched', 'config.toml'), SYSTEM_CONFIG_PATH] };
}

/** The edge: finds and reads the config file. Everything after this is `resolveConfig`, which is pure. */
export function readConfigFile(
  env: Readonly<Record<string, string | undefined>>,
): { path: string; text: string } | null {
  const { explicit, paths } = configFileCandidates(env, os.homedir());
  for (const candidate of paths) {
    try {
      return { path: candidate, text: fs.readFileSync(candidate, 'utf8') };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !explicit) continue;
      if (code === 'ENOENT')
        throw new SchedError('VALIDATION_FAILED', `SCHED_CONFIG names ${candidate}, which does not exist.`, {
          hint: 'Create the file, or unset SCHED_CONFIG to use ~/.config/sched/config.toml or /etc/sched/config.toml.',
          details: { path: candidate },
        });
      throw new SchedError(
        'VALIDATION_FAILED',
        `Cannot read the config file ${candidate} (${code ?? 'error'}).`,
        {
          hint: 'Check its permissions, or point SCHED_CONFIG at another file.',
          details: { path: candidate, errno: code },
        },
      );
    }
  }
  return null;
}

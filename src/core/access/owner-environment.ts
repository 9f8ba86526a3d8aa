/**
 * A job started as its owner does not inherit the daemon's environment: a root daemon's may hold what
 * only root should see (a store password, say). Like cron, it gets a small one: the search path, the
 * locale and the time zone of the daemon, then its owner's identity from the user database.
 */
const CARRIED = /^(PATH|LANG|LANGUAGE|LC_[A-Z]+|TZ)$/;
const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

/** What an owner's job starts from, out of the daemon's environment. */
export function carriedEnvironment(daemonEnv: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = { PATH: DEFAULT_PATH };
  for (const [key, value] of Object.entries(daemonEnv)) if (CARRIED.test(key)) env[key] = value;
  return env;
}

export interface OwnerAccount {
  name: string;
  home: string;
  shell: string;
}

/**
 * `env` with the owner's identity, as cron does it: a job's own `--env` may set HOME and SHELL, but USER
 * and LOGNAME always name the user it runs as, since programs take them for who they are.
 */
export function withOwnerIdentity(
  env: Readonly<Record<string, string>>,
  owner: OwnerAccount,
): Record<string, string> {
  return { HOME: owner.home, SHELL: owner.shell, ...env, USER: owner.name, LOGNAME: owner.name };
}

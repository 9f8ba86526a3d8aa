/**
 * The runner's variables a process started by a test inherits: what finding programs, a home, a temp
 * folder and the locale need. Nothing else passes, so a developer's SCHED_SOCKET, SCHED_STORE, TZ or
 * NODE_OPTIONS can never point a test's daemon or CLI somewhere else or change how it runs; a test that
 * wants one of them sets it explicitly.
 */
const INHERITED = new Set(['PATH', 'HOME', 'TMPDIR', 'LANG', 'LANGUAGE']);
const INHERITED_PREFIX = 'LC_';

/** The environment for a process a test starts: the allow-listed variables of `from`, then `explicit`. */
export function childEnv(
  explicit: Record<string, string> = {},
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(from))
    if (value !== undefined && (INHERITED.has(name) || name.startsWith(INHERITED_PREFIX))) env[name] = value;
  return { ...env, ...explicit };
}

/** The parent's ends of a spawned child's pipes (-1 where it has none), and its pid (= its process group). */
export interface SpawnedFds {
  pid: number;
  stdin: number;
  stdout: number;
  stderr: number;
  /** fd 3 of the child, when asked for. */
  status: number;
}

/** Whether spawnChild works here (Linux with pidfd_open, glibc 2.34 or later). */
export const supported: boolean;

/**
 * Starts `file` (searched on the PATH of `envp` when it has no slash) with `argv` and exactly `envp`, in a
 * session of its own, in `cwd` (null: this process's folder). `onExit` is called once, from the event loop,
 * when it has exited and been reaped: with its exit code, or the number of the signal that ended it.
 * Throws an Error whose `code` is the errno name (ENOENT, EACCES, ...) when it cannot be started.
 */
export function spawnChild(
  file: string,
  argv: readonly string[],
  envp: readonly string[],
  cwd: string | null,
  stdinPipe: boolean,
  statusPipe: boolean,
  onExit: (code: number | null, signal: number | null) => void,
): SpawnedFds;

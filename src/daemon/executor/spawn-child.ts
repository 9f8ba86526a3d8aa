import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import net from 'node:net';
import os from 'node:os';
import type { Readable, Writable } from 'node:stream';

/** What to start: exactly this environment, in a session of its own (its pid is its process group). */
export interface SpawnRequest {
  file: string;
  args: readonly string[];
  cwd: string | null;
  env: Readonly<Record<string, string>>;
  /** A pipe on stdin; otherwise stdin is /dev/null. */
  stdinPipe: boolean;
  /** A pipe on fd 3, read by the caller (sched-run-as's status). */
  statusPipe: boolean;
}

/** A started child as the executor uses it, whichever way it was started. */
export interface SpawnedChild {
  /** Undefined only when Node's spawn failed after returning (it then reports 'error' and never exits). */
  readonly pid: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly status: Readable | null;
  onError(listener: (error: Error) => void): void;
  /** Once, when it has exited: its exit code, or the signal that ended it. */
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  /** Once, after it exited and every pipe of it closed. */
  onClose(listener: () => void): void;
}

type NativeSpawn = typeof import('sched-process-spawn');

/**
 * posix_spawn through the addon built by `npm ci`, where it loads and the kernel has pidfds; Node's fork-based
 * spawn otherwise. A fork copies the spawner's page tables, which capped spawning near 650/s here.
 */
const nativeSpawn: NativeSpawn | null = await import('sched-process-spawn').then(
  (addon) => (addon.supported ? addon : null),
  () => null,
);

/** Throws (with `code`, an errno name such as ENOENT) when the program cannot be started. */
export function spawnChild(request: SpawnRequest): SpawnedChild {
  return nativeSpawn === null ? spawnWithNode(request) : spawnNatively(nativeSpawn, request);
}

export function nativeSpawnAvailable(): boolean {
  return nativeSpawn !== null;
}

const SIGNAL_NAMES = new Map(
  Object.entries(os.constants.signals).map(([name, number]) => [number, name as NodeJS.Signals]),
);

export function spawnNatively(addon: NativeSpawn, request: SpawnRequest): SpawnedChild {
  const events = new EventEmitter();
  let exited = false;
  let openPipes = 0;
  const closeIfDone = (): void => {
    if (exited && openPipes === 0) events.emit('close');
  };
  const fds = addon.spawnChild(
    request.file,
    [request.file, ...request.args],
    Object.entries(request.env).map(([name, value]) => `${name}=${value}`),
    request.cwd,
    request.stdinPipe,
    request.statusPipe,
    (code, signal) => {
      exited = true;
      events.emit('exit', code, signal === null ? null : (SIGNAL_NAMES.get(signal) ?? null));
      closeIfDone();
    },
  );
  const readEnd = (fd: number): Readable => {
    openPipes += 1;
    const stream = new net.Socket({ fd, readable: true, writable: false });
    stream.once('close', () => {
      openPipes -= 1;
      closeIfDone();
    });
    return stream;
  };
  return {
    pid: fds.pid,
    stdin: fds.stdin < 0 ? null : new net.Socket({ fd: fds.stdin, readable: false, writable: true }),
    stdout: readEnd(fds.stdout),
    stderr: readEnd(fds.stderr),
    status: fds.status < 0 ? null : readEnd(fds.status),
    // Every failure to start is thrown above; a started child has nothing more to report.
    onError: () => {},
    onExit: (listener) => events.once('exit', listener),
    onClose: (listener) => events.once('close', listener),
  };
}

export function spawnWithNode(request: SpawnRequest): SpawnedChild {
  const child: ChildProcess = spawn(request.file, request.args, {
    cwd: request.cwd ?? undefined,
    env: request.env,
    detached: true,
    stdio: [
      request.stdinPipe ? 'pipe' : 'ignore',
      'pipe',
      'pipe',
      ...(request.statusPipe ? ['pipe' as const] : []),
    ],
  });
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout!,
    stderr: child.stderr!,
    status: (child.stdio[3] as Readable | null | undefined) ?? null,
    onError: (listener) => child.on('error', listener),
    onExit: (listener) => child.once('exit', listener),
    onClose: (listener) => child.once('close', listener),
  };
}

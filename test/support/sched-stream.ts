import { spawn, type ChildProcess } from 'node:child_process';
import { childEnv } from './child-env.js';
import { schedBin } from './sched-harness.js';

/** A `sched …` process that keeps printing (watch, logs --follow), whose lines the test reads as they come. */
export interface SchedStream {
  process: ChildProcess;
  lines: string[];
  stderr: () => string;
  exited: Promise<number | null>;
}

export function streamSched(home: string, args: string[]): SchedStream {
  const child = spawn(process.execPath, [schedBin, ...args], {
    env: childEnv({ SCHED_HOME: home, NO_COLOR: '1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let pending = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, lines, stderr: () => stderr, exited };
}

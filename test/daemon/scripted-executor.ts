import { EventEmitter } from 'node:events';
import os from 'node:os';
import type { RunOutcome } from '../../src/core/run.js';
import type { CommandExecutor } from '../../src/daemon/executor/command-executor.js';
import type { HttpExecutor } from '../../src/daemon/executor/http-executor.js';
import { LiveOutput } from '../../src/daemon/live-output.js';
import { newId } from '../../src/store/ids.js';

/** An executor that runs nothing: the test says when a run starts, ends, or cannot be handed over. */
export class ScriptedExecutor {
  readonly handed: string[] = [];
  refuse: Error | null = null;
  private readonly emitter = new EventEmitter();

  on(event: string, listener: (runId: string, ...rest: never[]) => void): () => void {
    const heard = listener as (...args: unknown[]) => void;
    this.emitter.on(event, heard);
    return () => this.emitter.off(event, heard);
  }

  run(execution: { runId: string }): void {
    if (this.refuse) throw this.refuse;
    this.handed.push(execution.runId);
  }

  start(runId: string, pid: number | null, at: number): void {
    this.emitter.emit('started', runId, pid, at);
  }

  finish(runId: string, result: RunOutcome): void {
    this.emitter.emit('finished', runId, result);
  }

  kill(): boolean {
    return false;
  }

  runningCount(): number {
    return this.handed.length;
  }

  async stop(): Promise<void> {}
}

/**
 * What a RunLauncher is given in a test whose executors are scripted: node `node-a`, fence 1, the daemon's
 * own account, no retries waited for; the test adds its store, clock and events.
 */
export function scriptedLauncherOptions(commands: ScriptedExecutor, http: ScriptedExecutor) {
  return {
    newId,
    node: 'node-a',
    runFence: () => 1,
    commands: commands as unknown as CommandExecutor,
    http: http as unknown as HttpExecutor,
    baseEnv: {},
    daemonAccount: { user: os.userInfo().username, isRoot: process.getuid?.() === 0 },
    waitForRetry: () => undefined,
    liveOutput: new LiveOutput(),
  };
}

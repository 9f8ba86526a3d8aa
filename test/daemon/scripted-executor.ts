import { EventEmitter } from 'node:events';
import type { RunOutcome } from '../../src/core/run.js';

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

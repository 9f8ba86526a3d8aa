import { statSync } from 'node:fs';
import type { FailureCause, RunOutcome } from '../../core/run.js';
import { systemClock, type CancelTimer } from '../clock.js';
import type { ChildJournal } from '../orphans/child-journal.js';
import { launchAsOwner, runAsFailure, type Launch } from './owner-launch.js';
import { OutputTail } from './output-tail.js';
import { signalProcessGroup } from './process-group.js';
import { spawnChild, type SpawnedChild } from './spawn-child.js';
import type {
  ChildOutcome,
  CommandExecution,
  FromWorkerMessage,
  TerminationState,
} from './worker-protocol.js';

/**
 * This file runs in the spawn worker, the children's side of the executor: its timers (output batches,
 * kill grace, pipe drain) pace real processes in real time, in a process that cannot share the daemon's
 * clock object. What the daemon measures (start and end instants, the job's timeout) is on its clock.
 */
const clock = systemClock;

/** Live output is sent on at most this often per run, so a chatty child costs few messages. */
const OUTPUT_FLUSH_MS = 100;
/** Live output held back between flushes; beyond it, the oldest part is dropped (the tail keeps the end). */
const OUTPUT_HOLD_BYTES = 64 * 1024;

/** How long to wait after 'exit' for the pipes to close, so the tails are complete. */
const DRAIN_WAIT_MS = 500;
const SHELL = '/bin/sh';

type ExitStatus = { code: number | null; signal: NodeJS.Signals | null };

/** One child process inside the spawn worker: spawn, collect output, enforce timeout and kill. */
export class ChildRun {
  private readonly stdoutTail = new OutputTail();
  private readonly stderrTail = new OutputTail();
  private readonly timers: CancelTimer[] = [];
  private child: SpawnedChild | null = null;
  private exit: ExitStatus | null = null;
  private termination: { state: TerminationState; error: string } | null = null;
  private done = false;
  private readonly pendingOutput: { stdout: Buffer[]; stderr: Buffer[] } = { stdout: [], stderr: [] };
  private cancelOutputFlush: CancelTimer | null = null;
  private journaled = false;
  /** What sched-run-as said on its status pipe: empty unless it failed before the command ran. */
  private runAsStatus = '';

  constructor(
    private readonly execution: CommandExecution,
    private readonly killGraceMs: number,
    private readonly journal: ChildJournal | null,
    private readonly report: (message: FromWorkerMessage) => void,
    private readonly onDone: () => void,
  ) {}

  private onOutput(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    (stream === 'stdout' ? this.stdoutTail : this.stderrTail).push(chunk);
    const pending = this.pendingOutput[stream];
    pending.push(chunk);
    let held = pending.reduce((sum, part) => sum + part.length, 0);
    while (held > OUTPUT_HOLD_BYTES && pending.length > 1) held -= pending.shift()!.length;
    this.cancelOutputFlush ??= clock.setTimer(OUTPUT_FLUSH_MS, () => this.flushOutput());
  }

  /** Sends what was printed since the last flush; always before `finished`, so watchers see it all in order. */
  private flushOutput(): void {
    this.cancelOutputFlush?.();
    this.cancelOutputFlush = null;
    for (const stream of ['stdout', 'stderr'] as const) {
      const pending = this.pendingOutput[stream];
      if (pending.length === 0) continue;
      const data = Buffer.concat(pending).toString('utf8');
      pending.length = 0;
      const { totalBytes } = stream === 'stdout' ? this.stdoutTail : this.stderrTail;
      this.report({ type: 'output', runId: this.execution.runId, stream, data, totalBytes });
    }
  }

  start(): void {
    const { runId, argv, shell, cwd, env, stdin, runAs } = this.execution;
    const [file, ...args] = shell !== null ? [SHELL, '-c', shell] : (argv ?? []);
    if (file === undefined) return this.failBeforeStart('nothing to run: neither argv nor shell was given');
    const cwdProblem = checkWorkingDirectory(cwd);
    if (cwdProblem !== null) return this.failBeforeStart(cwdProblem);
    const launch: Launch =
      runAs === null
        ? { file, args, cwd, env, statusPipe: false }
        : launchAsOwner(runAs, { file, args, cwd }, env);
    if ('problem' in launch) return this.failBeforeStart(launch.problem);
    let child: SpawnedChild;
    try {
      child = spawnChild({ ...launch, stdinPipe: stdin !== null });
    } catch (error) {
      return this.failBeforeStart(
        describeSpawnError(launch.file, error, this.execution),
        spawnFailureCause(error),
      );
    }
    this.child = child;
    if (child.pid !== undefined) this.journalChild(child.pid);
    this.report({ type: 'started', runId, pid: child.pid ?? null });
    // A failed spawn emits 'error' and never 'exit'; later errors of a live child are not the run's end.
    child.onError((error) => {
      if (child.pid === undefined)
        this.finishFailed(describeSpawnError(launch.file, error, this.execution), spawnFailureCause(error));
    });
    child.stdout.on('data', (chunk: Buffer) => this.onOutput('stdout', chunk)).on('error', ignore);
    child.stderr.on('data', (chunk: Buffer) => this.onOutput('stderr', chunk)).on('error', ignore);
    child.status?.on('data', (chunk: Buffer) => (this.runAsStatus += chunk.toString('utf8')));
    if (stdin !== null && child.stdin) {
      child.stdin.on('error', ignore); // EPIPE: a child that doesn't read its payload has not failed
      child.stdin.end(stdin);
    }
    child.onExit((code, signal) => this.onExit({ code, signal }));
    child.onClose(() => this.finishExited());
  }

  /** Before anything else, so a daemon killed from here on leaves its successor the child to stop. */
  private journalChild(pid: number): void {
    try {
      this.journal?.record(this.execution.runId, pid);
      this.journaled = this.journal !== null;
    } catch {
      // The run matters more than its entry; the successor still finds the child by its SCHED_RUN_ID.
    }
  }

  private forgetChild(): void {
    try {
      this.journal?.forget(this.execution.runId);
    } catch {
      // A stale entry is harmless: its successor finds the process gone, or another in its pid.
    }
  }

  /** SIGTERM to the whole group, SIGKILL after the grace period. The first reason wins. */
  terminate(state: TerminationState, error: string): void {
    const pid = this.child?.pid;
    if (this.done || this.exit !== null || this.termination !== null || pid === undefined) return;
    this.termination = { state, error };
    signalProcessGroup(pid, 'SIGTERM');
    this.timers.push(clock.setTimer(this.killGraceMs, () => signalProcessGroup(pid, 'SIGKILL')));
  }

  private onExit(status: ExitStatus): void {
    this.exit = status;
    const pid = this.child?.pid;
    // The leader is gone; members of a group we were told to end must not outlive it.
    if (this.termination !== null && pid !== undefined) signalProcessGroup(pid, 'SIGKILL');
    this.timers.push(
      clock.setTimer(DRAIN_WAIT_MS, () => {
        // A grandchild still holds the pipe open: stop waiting for it.
        this.child?.stdout.destroy();
        this.child?.stderr.destroy();
        this.finishExited();
      }),
    );
  }

  private finishExited(): void {
    if (this.exit === null) return;
    const { code, signal } = this.exit;
    if (this.runAsStatus !== '') return this.failRunAs(this.runAsStatus);
    if (this.termination !== null)
      return this.finish(this.termination.state, this.termination.error, code, signal);
    if (code === 0) return this.finish('succeeded', null, code, signal);
    if (code !== null) return this.finish('failed', `exited with code ${code}`, code, signal);
    this.finish('failed', `killed by signal ${signal ?? 'unknown'}`, code, signal);
  }

  /** sched-run-as exited before it could exec the command: why, as a spawn of the command would say it. */
  private failRunAs(status: string): void {
    const failure = runAsFailure(status);
    const { runAs, shell, argv } = this.execution;
    const command = shell !== null ? SHELL : (argv?.[0] ?? '');
    if (failure?.step === 'exec') {
      const error = { code: failure.code };
      return this.finishFailed(describeSpawnError(command, error, this.execution), spawnFailureCause(error));
    }
    if (failure?.step === 'chdir')
      return this.finishFailed(
        `working directory ${this.execution.cwd} cannot be entered by ${runAs} (${failure.code})`,
      );
    const why = failure === null ? status.trim() : `${failure.step} failed (${failure.code})`;
    this.finishFailed(`could not start it as ${runAs ?? 'its owner'}: ${why}`);
  }

  /** For a run killed while it waited for a free slot: it ends without a child ever existing. */
  cancelBeforeStart(reason: string): void {
    this.endBeforeStart('cancelled', reason);
  }

  private failBeforeStart(error: string, cause?: FailureCause): void {
    this.endBeforeStart('failed', error, cause);
  }

  /** `started` (without a pid) still precedes `finished`, as for a run that got a child. */
  private endBeforeStart(state: 'failed' | 'cancelled', error: string, cause?: FailureCause): void {
    if (this.done || this.child !== null) return;
    this.report({ type: 'started', runId: this.execution.runId, pid: null });
    this.finish(state, error, null, null, cause);
  }

  private finishFailed(error: string, cause?: FailureCause): void {
    this.finish('failed', error, null, null, cause);
  }

  private finish(
    state: RunOutcome['state'],
    error: string | null,
    exitCode: number | null,
    signal: string | null,
    cause?: FailureCause,
  ): void {
    if (this.done) return;
    this.done = true;
    for (const cancel of this.timers) cancel();
    if (this.journaled) this.forgetChild();
    const outcome: ChildOutcome = {
      state,
      exitCode,
      signal,
      error,
      stdoutTail: this.stdoutTail.toString(),
      stderrTail: this.stderrTail.toString(),
      stdoutBytes: this.stdoutTail.totalBytes,
      stderrBytes: this.stderrTail.totalBytes,
      ...(cause && { cause }),
    };
    this.flushOutput();
    this.report({ type: 'finished', runId: this.execution.runId, outcome });
    this.onDone();
  }
}

function ignore(): void {}

function checkWorkingDirectory(cwd: string | null): string | null {
  if (cwd === null) return null;
  try {
    return statSync(cwd).isDirectory() ? null : `working directory is not a directory: ${cwd}`;
  } catch (error) {
    return `working directory not found: ${cwd} (${errorCode(error) ?? String(error)})`;
  }
}

/** Names where the program was looked for: a path with a slash is relative to the run's directory. */
function describeSpawnError(command: string, error: unknown, execution: CommandExecution): string {
  const code = errorCode(error);
  const where = !command.includes('/')
    ? `on PATH (${execution.env.PATH ?? ''})`
    : execution.cwd !== null
      ? `in ${execution.cwd} (cwd)`
      : `in ${process.cwd()} (the daemon's working directory: the job has no cwd)`;
  if (code === 'ENOENT') return `${command}: not found ${where} (ENOENT)`;
  if (code === 'EACCES') return `${command}: permission denied ${where} (EACCES)`;
  const detail = code ?? (error instanceof Error ? error.message : String(error));
  return `could not start ${command} (${detail})`;
}

/** A program that is not there, or that cannot be run, will not be there or runnable on the next attempt. */
function spawnFailureCause(error: unknown): FailureCause | undefined {
  const code = errorCode(error);
  if (code === 'ENOENT') return { kind: 'not-found' };
  if (code === 'EACCES') return { kind: 'not-executable' };
  return undefined;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

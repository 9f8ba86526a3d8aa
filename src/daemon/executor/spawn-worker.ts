// The spawner process: every spawn and child bookkeeping happens here. Not in the daemon, nor in a thread
// of it: spawn() forks, and a fork copies the page tables of the whole process and makes every page the
// daemon then writes a copy-on-write fault (with TLB shootdowns on every core). Measured with perf at
// ~270 spawns/s from a worker thread, fork and those faults were 44 % of the daemon's CPU. Here children are
// started with posix_spawn where the addon is built (spawn-child.ts), which copies no page tables at all:
// forking even this small process capped spawning near 450/s. It lives exactly as long as its IPC channel
// to the daemon.
import { descriptorsOfChild } from '../../core/child-slots.js';
import { ChildJournal } from '../orphans/child-journal.js';
import { ChildRun } from './child-run.js';
import type {
  FromWorkerMessage,
  SpawnWorkerOptions,
  TerminationState,
  ToWorkerMessage,
} from './worker-protocol.js';

const send = process.send?.bind(process);
if (send === undefined) throw new Error('spawn-worker.js must be started by the daemon, with an IPC channel');

/**
 * Never spawn inside the message handler. Messages arrive in batches (a MessagePort, when this was a
 * thread, handed over at least 1,000 in one callback); at 2–4 ms a spawn, that kept this loop away from
 * I/O for seconds at a time: exits and pipe closes went unhandled, children piled up holding their
 * pipes, and each rare turn finished only ~511 runs (one epoll batch of pipe EOFs). Spawning from
 * setImmediate lets exits, output and closes interleave with spawning. One per turn: 1, 4 and "until
 * 3 ms are spent" were indistinguishable in throughput on a 2-vCPU machine, and one keeps every other
 * event at most one spawn away.
 */
const SPAWNS_PER_TURN = 1;

const optionsArgument = process.argv[2];
if (optionsArgument === undefined) throw new Error('spawn-worker.js takes its options as its one argument');
const { killGraceMs, maxChildren, descriptorBudget, journalDir } = JSON.parse(
  optionsArgument,
) as SpawnWorkerOptions;
const journal = journalDir === null ? null : new ChildJournal(journalDir);
/** Every run accepted and not yet finished, spawned or not. */
const runs = new Map<string, ChildRun>();
/** The runs of `runs` still waiting for a free slot, oldest first (a Map keeps insertion order). */
const waiting = new Map<string, ChildRun>();
/** The descriptors each run's child will hold, and those the started ones hold together. */
const descriptorsOf = new Map<string, number>();
let descriptorsHeld = 0;
let drainScheduled = false;
const report = (message: FromWorkerMessage): void => {
  // Once the daemon is gone nobody is listening; its successor's orphan sweep finds the children.
  if (process.connected) send(message);
};

function accept(message: Extract<ToWorkerMessage, { type: 'run' }>): void {
  const { runId } = message.execution;
  if (runs.has(runId)) return;
  const { stdin, runAs } = message.execution;
  const run = new ChildRun(message.execution, killGraceMs, journal, report, () => {
    // Never another run's entries: this one may have been forgotten already (its start threw).
    if (runs.get(runId) === run) forget(runId);
    scheduleDrain();
  });
  descriptorsOf.set(runId, descriptorsOfChild({ stdinPipe: stdin !== null, statusPipe: runAs !== null }));
  runs.set(runId, run);
  waiting.set(runId, run);
  scheduleDrain();
}

function kill(runId: string, state: TerminationState, reason: string): void {
  const queued = waiting.get(runId);
  if (queued !== undefined) return queued.cancelBeforeStart(reason);
  runs.get(runId)?.terminate(state, reason);
}

/** A run that finished, or could not start: its slot and the descriptors it held are free again. */
function forget(runId: string): void {
  if (!runs.delete(runId)) return;
  if (!waiting.delete(runId)) descriptorsHeld -= descriptorsOf.get(runId) ?? 0;
  descriptorsOf.delete(runId);
}

/** The oldest waiting run, if a child of it fits now: under the cap and within the descriptors left. */
function nextToStart(): [string, ChildRun] | null {
  const next = waiting.entries().next();
  if (next.done === true || runs.size - waiting.size >= maxChildren) return null;
  const fits =
    descriptorBudget === null || descriptorsHeld + descriptorsOf.get(next.value[0])! <= descriptorBudget;
  return fits ? next.value : null;
}

function scheduleDrain(): void {
  if (drainScheduled || nextToStart() === null) return;
  drainScheduled = true;
  setImmediate(drain);
}

function drain(): void {
  drainScheduled = false;
  for (let spawned = 0; spawned < SPAWNS_PER_TURN; spawned++) {
    const next = nextToStart();
    if (next === null) break;
    const [runId, run] = next;
    waiting.delete(runId);
    descriptorsHeld += descriptorsOf.get(runId)!;
    start(runId, run);
  }
  scheduleDrain();
}

function start(runId: string, run: ChildRun): void {
  try {
    run.start();
  } catch (error) {
    // A bug here must cost one run, not the worker and every run in it.
    if (!runs.has(runId)) return;
    forget(runId);
    report({
      type: 'finished',
      runId,
      outcome: {
        state: 'failed',
        exitCode: null,
        signal: null,
        error: `executor error: ${error instanceof Error ? error.message : String(error)}`,
        stdoutTail: '',
        stderrTail: '',
      },
    });
  }
}

process.on('message', (message: ToWorkerMessage) => {
  if (message.type === 'kill') kill(message.runId, message.state, message.reason);
  else accept(message);
});
process.on('disconnect', () => process.exit(0));
// A terminal's Ctrl-C or a service manager's SIGTERM is the daemon's to handle: it kills the runs with their
// grace and records how they ended, which it could not if this process had died with them.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => {});

report({ type: 'ready' });

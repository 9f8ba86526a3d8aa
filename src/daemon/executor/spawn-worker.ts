// Worker-thread entry: every spawn and child bookkeeping happens here, because spawn() blocks the
// event loop for 1–3 ms and the daemon's main thread must fire timers within a millisecond.
import { parentPort, workerData } from 'node:worker_threads';
import { ChildJournal } from '../orphans/child-journal.js';
import { ChildRun } from './child-run.js';
import type {
  FromWorkerMessage,
  SpawnWorkerOptions,
  TerminationState,
  ToWorkerMessage,
} from './worker-protocol.js';

const port = parentPort;
if (port === null) throw new Error('spawn-worker.js must be started as a worker thread');

/**
 * Never spawn inside the message handler. A MessagePort hands over every queued message (at least
 * 1,000) in one callback; at 2–4 ms a spawn, that kept this loop away from I/O for seconds at a time:
 * exits and pipe closes went unhandled, children piled up holding their pipes, and each rare turn
 * finished only ~511 runs (one epoll batch of pipe EOFs). Spawning from setImmediate lets exits, output
 * and closes interleave with spawning. One per turn: 1, 4 and "until 3 ms are spent" were
 * indistinguishable in throughput on a 2-vCPU machine, and one keeps every other event at most one
 * spawn away.
 */
const SPAWNS_PER_TURN = 1;

const { killGraceMs, maxAliveChildren, journalDir } = workerData as SpawnWorkerOptions;
const journal = journalDir === null ? null : new ChildJournal(journalDir);
/** Every run accepted and not yet finished, spawned or not. */
const runs = new Map<string, ChildRun>();
/** The runs of `runs` still waiting for a free slot, oldest first (a Map keeps insertion order). */
const waiting = new Map<string, ChildRun>();
let drainScheduled = false;
const report = (message: FromWorkerMessage): void => port.postMessage(message);

function accept(message: Extract<ToWorkerMessage, { type: 'run' }>): void {
  const { runId } = message.execution;
  if (runs.has(runId)) return;
  const run = new ChildRun(message.execution, killGraceMs, journal, report, () => {
    runs.delete(runId);
    waiting.delete(runId);
    scheduleDrain();
  });
  runs.set(runId, run);
  waiting.set(runId, run);
  scheduleDrain();
}

function kill(runId: string, state: TerminationState, reason: string): void {
  const queued = waiting.get(runId);
  if (queued !== undefined) return queued.cancelBeforeStart(reason);
  runs.get(runId)?.terminate(state, reason);
}

function scheduleDrain(): void {
  if (drainScheduled || waiting.size === 0 || runs.size - waiting.size >= maxAliveChildren) return;
  drainScheduled = true;
  setImmediate(drain);
}

function drain(): void {
  drainScheduled = false;
  for (let spawned = 0; spawned < SPAWNS_PER_TURN; spawned++) {
    const next = waiting.entries().next();
    if (next.done === true || runs.size - waiting.size >= maxAliveChildren) break;
    const [runId, run] = next.value;
    waiting.delete(runId);
    start(runId, run);
  }
  scheduleDrain();
}

function start(runId: string, run: ChildRun): void {
  try {
    run.start();
  } catch (error) {
    // A bug here must cost one run, not the worker and every run in it.
    if (!runs.delete(runId)) return;
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

port.on('message', (message: ToWorkerMessage) => {
  if (message.type === 'kill') kill(message.runId, message.state, message.reason);
  else accept(message);
});

report({ type: 'ready' });

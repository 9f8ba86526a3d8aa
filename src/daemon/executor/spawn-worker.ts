// Worker-thread entry: every spawn and child bookkeeping happens here, because spawn() blocks the
// event loop for 1–3 ms and the daemon's main thread must fire timers within a millisecond.
import { parentPort, workerData } from 'node:worker_threads';
import { ChildRun } from './child-run.js';
import type { FromWorkerMessage, SpawnWorkerOptions, ToWorkerMessage } from './worker-protocol.js';

const port = parentPort;
if (port === null) throw new Error('spawn-worker.js must be started as a worker thread');

const { killGraceMs } = workerData as SpawnWorkerOptions;
const runs = new Map<string, ChildRun>();
const report = (message: FromWorkerMessage): void => port.postMessage(message);

function handle(message: ToWorkerMessage): void {
  if (message.type === 'kill') return runs.get(message.runId)?.terminate('cancelled', message.reason);
  const { runId } = message.execution;
  if (runs.has(runId)) return;
  const run = new ChildRun(message.execution, killGraceMs, report, () => runs.delete(runId));
  runs.set(runId, run);
  run.start();
}

port.on('message', (message: ToWorkerMessage) => {
  try {
    handle(message);
  } catch (error) {
    // A bug here must cost one run, not the worker and every run in it.
    if (message.type !== 'run' || !runs.delete(message.execution.runId)) return;
    report({
      type: 'finished',
      runId: message.execution.runId,
      outcome: {
        state: 'failed',
        finishedAt: Date.now(),
        exitCode: null,
        signal: null,
        error: `executor error: ${error instanceof Error ? error.message : String(error)}`,
        stdoutTail: '',
        stderrTail: '',
      },
    });
  }
});

report({ type: 'ready' });

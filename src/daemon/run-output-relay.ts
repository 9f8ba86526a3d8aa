import type { Store } from '../store/store.js';
import type { CancelTimer, Clock } from './clock.js';
import type { DaemonEvents } from './events.js';

/** Output is gathered this long before it is stored: one row per stream per run, not one per chunk. */
export const OUTPUT_BATCH_MS = 250;
/** The most one batch holds; what a run prints beyond it within one batch is cut, and the batch says so. */
export const MAX_BATCH_BYTES = 64 * 1024;
/** The most of one run's output that is stored for other nodes (its kept tail is stored at its end). */
export const MAX_RELAYED_BYTES_PER_RUN = 1024 * 1024;

type Stream = 'stdout' | 'stderr';

interface PendingRun {
  text: Record<Stream, string>;
  relayedBytes: number;
  cutBytes: number;
  seq: number;
  /** The run's batches are written one after another, so they are stored in order. */
  writing: Promise<void>;
}

export interface RunOutputRelayOptions {
  store: Store;
  clock: Clock;
  /** The job of a run this node runs, undefined once it is not running here. */
  jobIdOf: (runId: string) => string | undefined;
  onError: (error: Error) => void;
}

/**
 * Stores the output of the runs this node runs in batches, as `run:output` events, so `sched logs
 * --follow` on another node can print it as it comes. A run's last batch is stored before its end is.
 */
export class RunOutputRelay {
  private readonly runs = new Map<string, PendingRun>();
  private timer: CancelTimer | null = null;

  constructor(private readonly options: RunOutputRelayOptions) {}

  /** A chunk the run printed. */
  add(runId: string, stream: Stream, data: string): void {
    let run = this.runs.get(runId);
    if (!run) {
      run = {
        text: { stdout: '', stderr: '' },
        relayedBytes: 0,
        cutBytes: 0,
        seq: 0,
        writing: Promise.resolve(),
      };
      this.runs.set(runId, run);
    }
    const room = Math.min(MAX_BATCH_BYTES - Buffer.byteLength(run.text[stream]), this.roomLeft(run));
    const bytes = Buffer.byteLength(data);
    if (bytes <= room) run.text[stream] += data;
    else {
      if (room > 0) run.text[stream] += Buffer.from(data).subarray(0, room).toString();
      run.cutBytes += bytes - Math.max(room, 0);
    }
    this.timer ??= this.options.clock.setTimer(OUTPUT_BATCH_MS, () => {
      this.timer = null;
      for (const id of this.runs.keys()) void this.flush(id, false);
    });
  }

  /** Stores what the run printed and has not been stored yet; at its end, forgets it. */
  async flush(runId: string, ended = true): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) return;
    if (ended) this.runs.delete(runId);
    const jobId = this.options.jobIdOf(runId);
    for (const stream of ['stdout', 'stderr'] as const) {
      let data = run.text[stream];
      run.text[stream] = '';
      if (stream === 'stderr' && run.cutBytes > 0) {
        data += `\n[sched: ${run.cutBytes} bytes of this run's output were not relayed to other nodes; \`sched logs ${runId}\` shows its kept tail once it ends]\n`;
        run.cutBytes = 0;
      }
      if (data === '' || jobId === undefined) continue;
      run.relayedBytes += Buffer.byteLength(data);
      run.seq += 1;
      const batch = { runId, jobId, stream, data, seq: run.seq, at: this.options.clock.now() };
      run.writing = run.writing
        .then(() => this.options.store.appendRunOutput(batch))
        .catch((error: Error) => this.options.onError(error));
    }
    await run.writing;
  }

  private roomLeft(run: PendingRun): number {
    const pending = Buffer.byteLength(run.text.stdout) + Buffer.byteLength(run.text.stderr);
    return MAX_RELAYED_BYTES_PER_RUN - run.relayedBytes - pending;
  }

  stop(): void {
    this.timer?.();
    this.timer = null;
  }
}

/** A relay fed with the output of this node's runs, as the daemon's events report it. */
export function relayRunOutput(events: DaemonEvents, options: RunOutputRelayOptions): RunOutputRelay {
  const relay = new RunOutputRelay(options);
  events.on('run:output', ({ runId, stream, data }) => relay.add(runId, stream, data));
  return relay;
}

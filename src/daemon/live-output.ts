import { OutputTail } from './executor/output-tail.js';

type Stream = 'stdout' | 'stderr';

/** What a running run has printed so far, in the shape the stored run carries it. */
export interface LiveTail {
  stdoutTail: string;
  stderrTail: string;
  stdoutBytes: number;
  stderrBytes: number;
  /** How many chunks the tails hold: the `seq` of the last `run:output` event they include. */
  outputSeq: number;
}

interface RunTail {
  stdout: OutputTail;
  stderr: OutputTail;
  bytes: Record<Stream, number>;
  seq: number;
}

/**
 * The bounded tail (64 KiB a stream, as stored) of every running command run, kept from its live output
 * so `sched logs` and the dashboard show what a run printed before they looked. Each chunk gets the next
 * number of its run, published with it: a reader that subscribed first and then read the tail prints only
 * the chunks numbered above the tail's `outputSeq`, so nothing is lost or shown twice.
 */
export class LiveOutput {
  private readonly runs = new Map<string, RunTail>();

  /** Adds a chunk and returns its number (1 for a run's first). */
  record(runId: string, stream: Stream, data: string, totalBytes: number): number {
    let run = this.runs.get(runId);
    if (run === undefined) {
      run = { stdout: new OutputTail(), stderr: new OutputTail(), bytes: { stdout: 0, stderr: 0 }, seq: 0 };
      this.runs.set(runId, run);
    }
    run[stream].push(Buffer.from(data, 'utf8'));
    run.bytes[stream] = totalBytes;
    run.seq += 1;
    return run.seq;
  }

  /** The tail so far, or null for a run that printed nothing (or is not running here). */
  tailOf(runId: string): LiveTail | null {
    const run = this.runs.get(runId);
    if (run === undefined) return null;
    return {
      stdoutTail: run.stdout.toString(),
      stderrTail: run.stderr.toString(),
      stdoutBytes: run.bytes.stdout,
      stderrBytes: run.bytes.stderr,
      outputSeq: run.seq,
    };
  }

  /** Once the run's end is stored, its stored tails say it all. */
  forget(runId: string): void {
    this.runs.delete(runId);
  }
}

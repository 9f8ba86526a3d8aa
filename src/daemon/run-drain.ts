import { sleep, type Clock } from './clock.js';
import type { RunLauncher } from './run-launcher.js';
import type { Service } from './service.js';

const SHUTDOWN_REASON = 'killed: the daemon shut down before the run finished';

/**
 * The runs this daemon started: when it stops, they may finish within the grace period; what still runs
 * after it (or at once when hurried) is killed and recorded.
 */
export class RunDrain implements Service {
  readonly name = 'runs';
  private graceMs: number;
  private hurried = false;

  constructor(
    private readonly launcher: RunLauncher,
    private readonly clock: Clock,
    defaultGraceMs: number,
  ) {
    this.graceMs = defaultGraceMs;
  }

  /** How long running jobs may go on once the stop begins. */
  allowGrace(graceMs: number): void {
    this.graceMs = graceMs;
  }

  /** A second stop signal: skip what is left of the grace period. */
  hurry(): void {
    this.hurried = true;
  }

  async start(): Promise<void> {
    // The launcher takes runs as soon as it exists; there is nothing more to start.
  }

  async stop(): Promise<void> {
    const deadline = this.clock.monotonic() + this.graceMs;
    while (this.launcher.runningCount() > 0 && this.clock.monotonic() < deadline && !this.hurried)
      await sleep(this.clock, 50);
    await this.launcher.stop(SHUTDOWN_REASON);
  }
}

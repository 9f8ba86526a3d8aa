import { SchedCommand } from '../cli/base-command.js';
import { hostTimeZone } from '../cli/format/time.js';
import { SchedError } from '../core/errors.js';

export default class Dash extends SchedCommand {
  static override summary = 'A live dashboard of jobs and runs in the terminal.';
  static override description = `Jobs with their schedules, countdowns to their next runs, last results and a sparkline of recent runs; what runs now; a job's history and a run's output. It follows the daemon's events as they happen and reconnects when the daemon restarts.

Keys: ↑↓ or j k move, Enter opens, Esc goes back, / filters by name or label, s sorts, t triggers, p pauses or resumes, x kills a running run, c cancels a job (after asking), ? shows help, q quits.

It needs an interactive terminal; for scripts and pipes use \`sched watch\`. NO_COLOR turns colour off.`;

  // A dashboard has nothing to print as JSON; `sched watch --json` is the machine-readable stream.
  static override enableJsonFlag = false;

  static override examples = [
    { description: 'Open the dashboard.', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'Without colour.',
      command: 'NO_COLOR=1 <%= config.bin %> <%= command.id %>',
    },
  ];

  async run(): Promise<void> {
    await this.parse(Dash);
    if (!process.stdout.isTTY || !process.stdin.isTTY) {
      throw new SchedError('VALIDATION_FAILED', `${this.config.bin} dash needs an interactive terminal.`, {
        hint: `For events in scripts or pipes, use \`${this.config.bin} watch\` (with --json for JSON lines).`,
      });
    }
    // React's development build checks and measures every render: several times slower, and it only
    // helps someone debugging React itself. Set before React loads, which is the next line.
    process.env.NODE_ENV ??= 'production';
    // Loaded here so the other commands never pay for React and Ink.
    const { runDashboard } = await import('../tui/run-dashboard.js');
    await runDashboard({
      target: await this.clientTarget(),
      env: process.env,
      zone: hostTimeZone(),
    });
  }
}

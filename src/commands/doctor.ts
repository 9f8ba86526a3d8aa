import { SchedCommand } from '../cli/base-command.js';
import type { CheckStatus, DoctorReport } from '../diagnostics/check.js';
import { diagnose } from '../diagnostics/diagnose.js';

export default class Doctor extends SchedCommand {
  static override localOnly = 'checks this host: its config, socket, files and daemon';
  static override summary = 'Check that sched can work here, and say what to fix.';
  static override description =
    'Checks the config, the daemon (does it answer, which version), its socket (mode 0600, owned by you), the ' +
    'store (exists, writable, passes SQLite quick_check), the transport to a PostgreSQL store (TLS to a ' +
    'host beyond loopback, server certificate checked), clock synchronisation (timedatectl) and time zone ' +
    'data. Exits 0 when nothing fails, 7 when no daemon answers, and 4 when another check fails.';

  static override examples = [
    { description: 'Check this host.', command: '<%= config.bin %> <%= command.id %>' },
    { description: 'For monitoring.', command: '<%= config.bin %> <%= command.id %> --json' },
  ];

  async run(): Promise<DoctorReport> {
    await this.parse(Doctor);
    const report = await diagnose(process.env, this.config.version);
    const { checks } = report;

    if (!this.jsonEnabled()) {
      for (const check of checks) {
        this.log(`${LABELS[check.status]}  ${check.name.padEnd(9)} ${check.message}`);
        if (check.fix !== null) this.log(`${' '.repeat(16)}fix: ${check.fix}`);
      }
      const failed = checks.filter((check) => check.status === 'fail').length;
      this.log(
        failed === 0 ? '\nNo problems found.' : `\n${failed} problem${failed === 1 ? '' : 's'} found.`,
      );
    }
    if (report.ok) return report;
    if (this.jsonEnabled()) this.logJson(report);
    this.exit(checks.find((check) => check.name === 'daemon')?.status === 'fail' ? 7 : 4);
  }
}

const LABELS: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', unknown: '??  ' };

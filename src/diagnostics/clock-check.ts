import { execFile } from 'node:child_process';
import { pass, warning, type Check } from './check.js';

export function clockCheck(): Promise<Check> {
  return new Promise((resolve) => {
    execFile(
      'timedatectl',
      ['show', '-p', 'NTPSynchronized', '--value'],
      { timeout: 5_000 },
      (error, stdout) => {
        const answer = stdout.trim();
        if (error || (answer !== 'yes' && answer !== 'no'))
          return resolve({
            name: 'clock',
            status: 'unknown',
            message: 'cannot tell whether the clock is synchronised (no timedatectl, or no systemd)',
            fix: null,
          });
        if (answer === 'yes') return resolve(pass('clock', 'synchronised (NTP)'));
        resolve(
          warning(
            'clock',
            'not synchronised: jobs fire by this host’s clock, however wrong it is',
            'Turn on time sync: timedatectl set-ntp true (or run chrony or ntpd).',
          ),
        );
      },
    );
  });
}

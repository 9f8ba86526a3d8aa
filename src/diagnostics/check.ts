export type CheckStatus = 'ok' | 'warn' | 'fail' | 'unknown';

export interface Check {
  name: 'config' | 'daemon' | 'socket' | 'store' | 'transport' | 'clock' | 'timezones' | 'backup';
  status: CheckStatus;
  message: string;
  /** What to do about it, for warn and fail. */
  fix: string | null;
}

export interface DoctorReport {
  ok: boolean;
  checks: Check[];
}

export const START_FIX =
  'Start it: `sched daemon run`, or `systemctl --user start sched` once `sched daemon install` wrote a unit.';

export const pass = (name: Check['name'], message: string): Check => ({
  name,
  status: 'ok',
  message,
  fix: null,
});
export const warning = (name: Check['name'], message: string, fix: string): Check => ({
  name,
  status: 'warn',
  message,
  fix,
});
export const failure = (name: Check['name'], message: string, fix: string): Check => ({
  name,
  status: 'fail',
  message,
  fix,
});

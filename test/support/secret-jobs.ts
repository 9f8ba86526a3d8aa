import { sched, type CliResult } from './sched-harness.js';

/** The secret the tests of secrets at rest look for everywhere it must not be. */
export const SECRET = 's3cr3t';

/** Adds a command job with `--env TOKEN=s3cr3t`, running the shell `script`, which sees it as $TOKEN. */
export function addTokenJob(home: string, name: string, every: string, script: string): Promise<CliResult> {
  return sched(home, ['add', name, '--every', every, '--env', `TOKEN=${SECRET}`, '--', 'sh', '-c', script]);
}

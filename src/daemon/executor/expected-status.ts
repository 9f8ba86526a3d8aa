import type { ExpectedStatus } from '../../core/job.js';

export function statusMatches(status: number, expect: ExpectedStatus): boolean {
  return expect.kind === 'class'
    ? Math.floor(status / 100) === expect.hundreds
    : expect.codes.includes(status);
}

/** As the user wrote it on the command line: `2xx` or `200,204`. */
export function describeExpected(expect: ExpectedStatus): string {
  return expect.kind === 'class' ? `${expect.hundreds}xx` : expect.codes.join(',');
}

/** "timed out after 1.5s": what a run that hit its timeout reports, whatever the executor. */
export function timedOutAfter(ms: number): string {
  return `timed out after ${ms < 1_000 ? `${ms}ms` : `${Number((ms / 1_000).toFixed(3))}s`}`;
}

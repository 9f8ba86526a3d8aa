/**
 * `--after-all`: whether every upstream job has succeeded since this job last ran. `successesSince` maps an
 * upstream to the time of its latest success after this job's last run, or null when it has not succeeded since;
 * an upstream missing from the map has not succeeded since either. With no upstreams there is nothing to wait
 * for, and nothing to trigger on, so the answer is false.
 */
export function fanInReady(
  upstreams: readonly string[],
  successesSince: ReadonlyMap<string, number | null>,
): boolean {
  if (upstreams.length === 0) return false;
  return upstreams.every((upstream) => (successesSince.get(upstream) ?? null) !== null);
}

/** The upstream jobs still to succeed before `--after-all` is ready, in the order given. */
export function fanInWaitingFor(
  upstreams: readonly string[],
  successesSince: ReadonlyMap<string, number | null>,
): string[] {
  return upstreams.filter((upstream) => (successesSince.get(upstream) ?? null) === null);
}

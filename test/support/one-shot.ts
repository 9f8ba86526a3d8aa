import { sched, type CliResult } from './sched-harness.js';

/**
 * Adds the one-shot job `name` with `sched add --at` an instant a moment ahead. The instant must still be
 * ahead when the daemon takes it; on a loaded machine the CLI alone can take longer than a fixed margin
 * (then it is refused AT_IN_PAST and stores nothing), so a wider margin is tried before giving up.
 */
export async function addOneShotSoon(home: string, name: string): Promise<{ at: number; added: CliResult }> {
  let added: CliResult | undefined;
  for (const aheadMs of [2_000, 5_000, 15_000]) {
    const at = Date.now() + aheadMs;
    added = await sched(home, ['add', name, '--at', new Date(at).toISOString(), '--json', '--', 'true']);
    if (added.json?.error?.code !== 'AT_IN_PAST') return { at, added };
  }
  throw new Error(`sched add --at was refused as in the past even 15 s ahead: ${added?.stdout}`);
}

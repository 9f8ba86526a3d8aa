import { formatDuration } from '../duration.js';
import { SchedError } from '../errors.js';
import type { OccurrenceOutcome } from '../ledger/entry.js';

/** What to do with instants that fell due while the job could not fire. */
export type MisfirePolicy =
  { kind: 'skip' } | { kind: 'latest' } | { kind: 'all' } | { kind: 'count'; count: number };

export interface MisfireSettings {
  policy: MisfirePolicy;
  /** Instants older than this when the job can fire again are never run. */
  catchupWindowMs: number;
  /** When the next regular instant is at most this far off, no catch-up runs at all; null to always catch up. */
  skipIfNextWithinMs: number | null;
}

export const DEFAULT_MISFIRE_SETTINGS: Readonly<MisfireSettings> = Object.freeze<MisfireSettings>({
  policy: { kind: 'latest' },
  catchupWindowMs: 3_600_000,
  skipIfNextWithinMs: null,
});

/**
 * Why the instants were missed: the daemon was down (or the host asleep), the job was paused, or the store
 * could not be reached (a job that fires on one node waits for the store, so no two nodes fire it).
 */
export type MisfireCause = 'down' | 'paused' | 'store-unreachable';

/** `while the job was paused`: the clause that says why a missed instant was missed. */
export function missedWhile(cause: MisfireCause): string {
  switch (cause) {
    case 'down':
      return 'while the scheduler was not running';
    case 'paused':
      return 'while the job was paused';
    case 'store-unreachable':
      return 'while the store could not be reached';
  }
}

export interface DroppedInstant {
  at: number;
  outcome: Extract<
    OccurrenceOutcome,
    'missed-while-down' | 'outside-catchup-window' | 'paused' | 'store-unreachable'
  >;
  /** A clause that completes "did not run because …". */
  reason: string;
}

export interface MisfirePlan {
  /** Instants to run now, oldest first. */
  run: number[];
  /** Every other missed instant, oldest first, for the ledger. */
  dropped: DroppedInstant[];
}

const MAX_COUNT = 10_000;
const MISFIRE_HINT =
  'Use skip (drop missed instants), latest (run the newest once; the default), all (run each in order) ' +
  'or count:N (run at most the newest N), e.g. --misfire count:3.';

/** Parses `--misfire skip|latest|all|count:N`. */
export function parseMisfire(text: string): MisfirePolicy {
  const value = text.trim().toLowerCase();
  if (value === 'skip' || value === 'latest' || value === 'all') return { kind: value };
  const count = /^count:(\d+)$/.exec(value);
  if (count !== null) {
    const n = Number(count[1]);
    if (n >= 1 && n <= MAX_COUNT) return { kind: 'count', count: n };
    throw new SchedError(
      'VALIDATION_FAILED',
      `Invalid --misfire "${text}": N must be between 1 and ${MAX_COUNT}.`,
      {
        hint: n === 0 ? 'To run none of the missed instants, use --misfire skip.' : MISFIRE_HINT,
        details: { value: text },
      },
    );
  }
  const hint = value === 'once' ? '"once" is called latest in sched: --misfire latest.' : MISFIRE_HINT;
  throw new SchedError('VALIDATION_FAILED', `Invalid --misfire "${text}".`, {
    hint,
    details: { value: text },
  });
}

/** The policy as the user writes it: `latest`, `count:3`. */
export function formatMisfire(policy: MisfirePolicy): string {
  return policy.kind === 'count' ? `count:${policy.count}` : policy.kind;
}

/**
 * Which missed instants run now and which are dropped, when the job can fire again at `now`. Instants older than
 * `now - catchupWindowMs` are dropped (`outside-catchup-window`; `paused` when the job was paused). Of the rest,
 * `skip` drops all, `latest` runs the newest, `all` runs all, `count:N` the newest N, oldest first. When
 * `nextDue` (the next regular instant) is at most `skipIfNextWithinMs` after `now`, the catch-up is dropped too.
 * Instants after `now` are not missed and are ignored; duplicates count once.
 */
export function planMisfire(
  missed: number[],
  now: number,
  nextDue: number | null,
  settings: MisfireSettings,
  cause: MisfireCause,
): MisfirePlan {
  const instants = [...new Set(missed)].filter((at) => at <= now).sort((a, b) => a - b);
  const windowStart = now - settings.catchupWindowMs;
  const window = formatDuration(settings.catchupWindowMs);
  const while_ = missedWhile(cause);
  const dropped: DroppedInstant[] = [];
  // A pause or an unreachable store names the instant's fate whatever rule dropped it.
  const drop = (at: number, outcome: DroppedInstant['outcome'], reason: string): void => {
    dropped.push({ at, outcome: cause === 'down' ? outcome : cause, reason });
  };
  const eligible: number[] = [];
  for (const at of instants) {
    if (at >= windowStart) eligible.push(at);
    else
      drop(
        at,
        'outside-catchup-window',
        `it fell due ${while_}, ${formatDuration(now - at)} before it could run, outside the ${window} catch-up window (--catchup-window ${window})`,
      );
  }
  const keep = keptCount(settings.policy, eligible.length);
  const flag = `--misfire ${formatMisfire(settings.policy)}`;
  const older = eligible.slice(0, eligible.length - keep);
  for (const at of older) {
    const rule =
      settings.policy.kind === 'skip'
        ? `the job is set to ${flag}`
        : `only the latest ${keep === 1 ? 'missed instant was' : `${keep} missed instants were`} caught up (${flag})`;
    drop(at, 'missed-while-down', `it fell due ${while_} and ${rule}`);
  }
  let run = eligible.slice(eligible.length - keep);
  const within = settings.skipIfNextWithinMs;
  if (run.length > 0 && nextDue !== null && within !== null && nextDue - now <= within) {
    const lead = `the next regular run was due ${formatDuration(Math.max(0, nextDue - now))} later`;
    for (const at of run) {
      drop(
        at,
        'missed-while-down',
        `it fell due ${while_} and ${lead}, within --skip-if-next-within ${formatDuration(within)}, so no catch-up ran`,
      );
    }
    run = [];
  }
  dropped.sort((a, b) => a.at - b.at);
  return { run, dropped };
}

function keptCount(policy: MisfirePolicy, eligible: number): number {
  switch (policy.kind) {
    case 'skip':
      return 0;
    case 'latest':
      return Math.min(1, eligible);
    case 'all':
      return eligible;
    case 'count':
      return Math.min(policy.count, eligible);
  }
}

import { formatDuration } from '../../core/duration.js';
import type { Job, JobDependency, JobState, Placement, TimePolicy } from '../../core/job.js';
import { DEFAULT_TIME_POLICY } from '../../core/job-defaults.js';
import { formatMisfire } from '../../core/policy/misfire.js';
import { spreadOffsetMs } from '../../core/policy/spread.js';

/** An upstream job as `sched show` names it: null name and state when the job is gone. */
export interface UpstreamRef {
  id: string;
  name: string | null;
  state: JobState | null;
}

type Field = [label: string, value: string];

/** A spread offset as a start time shows it: whole seconds, cut rather than rounded (`02:30:27` is `+27s`). */
export function formatSpreadOffset(ms: number): string {
  return formatDuration(ms < 1_000 ? ms : Math.floor(ms / 1_000) * 1_000);
}

const OVERLAP: Readonly<Record<TimePolicy['concurrency'], string>> = {
  forbid: 'an instant that comes due while a run still runs is skipped',
  allow: 'runs side by side when an instant comes due before the previous run ends',
  replace: 'an instant that comes due cancels the run still running',
  queue: 'an instant that comes due waits for the running run to end (at most one waits)',
};

/**
 * The time-policy lines of `sched show`: one per setting that differs from the default, each with the flags
 * that set it, so a job on the defaults shows a single line and an unusual one stands out.
 */
export function describeTimePolicy(policy: TimePolicy, jobId: string): Field[] {
  const fields: Field[] = [];
  if (policy.concurrency !== DEFAULT_TIME_POLICY.concurrency) {
    fields.push(['Overlap', `${OVERLAP[policy.concurrency]}  (--concurrency ${policy.concurrency})`]);
  }
  const misfire = describeMisfire(policy.misfire);
  if (misfire !== null) fields.push(['Missed runs', misfire]);
  const dst = describeDst(policy.dst);
  if (dst !== null) fields.push(['DST', dst]);
  if (policy.spreadMs !== null) {
    const offset = spreadOffsetMs(jobId, policy.spreadMs);
    fields.push([
      'Spread',
      `starts ${formatSpreadOffset(offset)} after each instant, a fixed offset within ${formatDuration(policy.spreadMs)}  (--spread ${formatDuration(policy.spreadMs)})`,
    ]);
  }
  if (policy.jitterMs !== null) {
    fields.push([
      'Jitter',
      `each instant waits a fresh random delay of up to ${formatDuration(policy.jitterMs)}  (--jitter ${formatDuration(policy.jitterMs)})`,
    ]);
  }
  return fields.length === 0 ? [['Time policy', 'defaults']] : fields;
}

function describeMisfire(misfire: TimePolicy['misfire']): string | null {
  const defaults = DEFAULT_TIME_POLICY.misfire;
  const policyFlag = formatMisfire(misfire.policy);
  const changed =
    policyFlag !== formatMisfire(defaults.policy) ||
    misfire.catchupWindowMs !== defaults.catchupWindowMs ||
    misfire.skipIfNextWithinMs !== defaults.skipIfNextWithinMs;
  if (!changed) return null;
  const flags = [`--misfire ${policyFlag}`];
  if (misfire.policy.kind === 'skip') return `skipped  (${flags.join(' ')})`;
  const window = formatDuration(misfire.catchupWindowMs);
  flags.push(`--catchup-window ${window}`);
  const what =
    misfire.policy.kind === 'all'
      ? 'each runs, oldest first'
      : misfire.policy.kind === 'count' && misfire.policy.count > 1
        ? `the newest ${misfire.policy.count} run, oldest first`
        : 'the newest runs once';
  let text = `${what}, if at most ${window} late`;
  if (misfire.skipIfNextWithinMs !== null) {
    const within = formatDuration(misfire.skipIfNextWithinMs);
    text += `; none when the next run is due within ${within}`;
    flags.push(`--skip-if-next-within ${within}`);
  }
  return `${text}  (${flags.join(' ')})`;
}

function describeDst(dst: TimePolicy['dst']): string | null {
  if (dst.gap === DEFAULT_TIME_POLICY.dst.gap && dst.repeat === DEFAULT_TIME_POLICY.dst.repeat) return null;
  const gap =
    dst.gap === 'shift'
      ? 'a wall time the clocks skip runs at the jump'
      : 'a wall time the clocks skip does not run';
  const repeat = {
    first: 'a repeated one runs at its first occurrence',
    last: 'a repeated one runs at its second occurrence',
    both: 'a repeated one runs at both',
  }[dst.repeat];
  return `${gap}; ${repeat}  (--dst-gap ${dst.gap} --dst-repeat ${dst.repeat})`;
}

const ENDS: Readonly<Record<JobDependency['on'], string>> = {
  success: 'succeeds',
  failure: 'fails',
  always: 'ends, either way',
};

/** `Runs after` and `Runs after all` lines, with upstream jobs by name; none when the job has no dependencies. */
export function describeDependencies(
  job: Pick<Job, 'after' | 'afterAll'>,
  upstreams: ReadonlyMap<string, UpstreamRef>,
): Field[] {
  const fields: Field[] = [];
  if (job.after.length > 0) {
    const each = job.after.map(({ job: id, on }) => `${upstreamName(id, upstreams)} ${ENDS[on]}`);
    fields.push(['Runs after', each.join(', or ')]);
  }
  if (job.afterAll.length > 0) {
    const names = job.afterAll.map((id) => upstreamName(id, upstreams));
    fields.push(['Runs after all', `${listing(names)} have each succeeded since its last run`]);
  }
  return fields;
}

/** `backup`, `backup (cancelled)`, or the stored id when the job is gone. */
export function upstreamName(id: string, upstreams: ReadonlyMap<string, UpstreamRef>): string {
  const ref = upstreams.get(id);
  if (ref === undefined || ref.name === null) return `${id} (no longer exists)`;
  return ref.state === 'cancelled' ? `${ref.name} (cancelled)` : ref.name;
}

function listing(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** Where in a federation the job runs, when that is not the default (one node per instant, any node). */
export function describePlacement(placement: Placement): Field[] {
  const fields: Field[] = [];
  if (placement.mode === 'every-host')
    fields.push(['Placement', 'every host runs each instant (--placement every-host)']);
  const on = Object.entries(placement.on).map(([key, value]) => `${key}=${value}`);
  if (on.length > 0) fields.push(['Runs on', `nodes labelled ${on.join(', ')} (--on)`]);
  return fields;
}

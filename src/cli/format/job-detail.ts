import { formatDuration } from '../../core/duration.js';
import { jobStatus } from '../../core/job-status.js';
import type { JobDetail, RunsAs } from '../../ipc/protocol.js';
import { describeCommand } from './command-line.js';
import { httpTargetFields } from './http-target.js';
import { formatLabels } from './labels.js';
import { describeRetryPolicy } from './retry-policy.js';
import { renderRunTable } from './run-list.js';
import { rawSchedule, type ScheduleDescriber } from './schedule.js';
import { colourJobState } from './state.js';
import { formatInstant, formatInstantWithRelative, type Viewer } from './time.js';
import {
  describeDependencies,
  describePlacement,
  describeTimePolicy,
  type UpstreamRef,
} from './time-policy.js';

/**
 * Everything `sched show` knows about a job. Environment and header values are left out on purpose:
 * they are often secrets, and a terminal is often shared or recorded; `--json` prints the stored job whole.
 */
export function renderJobDetail(
  detail: JobDetail,
  viewer: Viewer,
  describe: ScheduleDescriber,
  upstreams: ReadonlyMap<string, UpstreamRef> = new Map(),
): string {
  const { job } = detail;
  const { target } = job;
  const targetFields: [string, string][] =
    target.kind === 'http'
      ? httpTargetFields(target, detail.breaker, viewer)
      : [
          ['Command', describeCommand(target)],
          ['Working dir', target.cwd ?? '(the daemon’s)'],
          ['Env', Object.keys(target.env).join(', ') || '-'],
        ];
  const body = target.kind === 'http' ? ', sent as the request body' : '';
  const fields: [string, string][] = [
    ['Name', job.name],
    ['ID', job.id],
    ['State', colourJobState(jobStatus(job))],
    ['Version', String(job.version)],
    ['Owner', job.owner],
    ...(detail.runsAs ? [['Runs as', describeRunsAs(detail.runsAs)] as [string, string]] : []),
    [
      'Schedule',
      job.schedule.kind === 'none'
        ? 'none of its own: runs after other jobs, or when triggered'
        : `${describe(job.schedule, job.timezone)}  (${rawSchedule(job.schedule)})`,
    ],
    ...describeDependencies(job, upstreams),
    ['Time zone', job.timezone],
    ...describeTimePolicy(job.policy, job.id),
    ...describePlacement(job.placement),
    ...targetFields,
    ['Timeout', job.timeoutMs === null ? 'none' : formatDuration(job.timeoutMs)],
    ['Retries', describeRetryPolicy(job.retry)],
    [
      'Payload',
      job.payload === null
        ? 'none'
        : `${Buffer.byteLength(JSON.stringify(job.payload))} bytes of JSON${body}`,
    ],
    ['Labels', formatLabels(job.labels) || '-'],
    ['Created', formatInstant(job.createdAt, viewer.zone)],
    ['Updated', formatInstant(job.updatedAt, viewer.zone)],
  ];
  if (job.description) fields.splice(1, 0, ['Description', job.description]);
  const labelWidth = Math.max(...fields.map(([label]) => label.length)) + 1;
  const lines = fields.map(([label, value]) => `${`${label}:`.padEnd(labelWidth)} ${value}`);

  lines.push('', 'Next runs:');
  if (detail.upcoming.length === 0) lines.push('  none scheduled');
  for (const instant of detail.upcoming) lines.push(`  ${formatInstantWithRelative(instant, viewer)}`);

  lines.push('', 'Recent runs:');
  if (detail.recentRuns.length === 0) lines.push('  none yet');
  else lines.push(indent(renderRunTable(detail.recentRuns, viewer)));
  return lines.join('\n');
}

function indent(block: string): string {
  return block
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** `alice (uid 1001)`, or why its runs fail. */
function describeRunsAs(runsAs: RunsAs): string {
  if (runsAs.refused !== null) return `no one, its runs fail: ${runsAs.refused}`;
  return runsAs.uid === null ? runsAs.user : `${runsAs.user} (uid ${runsAs.uid})`;
}

import type { Job } from '../../core/job.js';
import type { Delivery } from '../../core/notify/delivery.js';
import { buildMessage } from '../../core/notify/message.js';
import { describeStoredTarget, describeTarget } from '../../core/notify/notify-target.js';
import { resolveAlerts, type NotifyDefaults } from '../../core/notify/plan.js';
import { SchedError } from '../../core/errors.js';
import type { Run, RunOutcome } from '../../core/run.js';
import type { DeliveryView, JobDetail, NotifyTestResult, Page, ParsedParams } from '../../ipc/protocol.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';
import type { JobLookup } from '../job-lookup.js';
import type { RunNotices } from './run-notices.js';
import type { TargetAnswer } from './transports.js';

export interface AlertRequestsOptions {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  lookup: JobLookup;
  notices: RunNotices;
  newId: () => string;
  node: string;
  fence: () => number;
  defaults: NotifyDefaults;
  send: (target: string, message: ReturnType<typeof buildMessage>) => Promise<TargetAnswer>;
  overdueJobs: () => ReadonlyMap<string, { since: number }>;
  /** Deliveries were stored: send them now. */
  onDeliveries: () => void;
}

const DETAIL_DELIVERIES = 10;

/** `sched ping`, `sched notify test`, `sched notifications`, and what `show` and `ls` say about alerts. */
export class AlertRequests {
  constructor(private readonly options: AlertRequestsOptions) {}

  /** Records a run that happened elsewhere (trigger `ping`): a success clears an overdue job. */
  async ping({ ref, fail, message }: ParsedParams<'job.ping'>): Promise<Run> {
    const { store, clock, lookup, newId, node, fence, notices, events } = this.options;
    const job = await lookup.findLive(ref, 'be pinged');
    const now = clock.now();
    const run = await store.insertRun({
      id: newId(),
      jobId: job.id,
      scheduledFor: now,
      attempt: 1,
      trigger: 'ping',
      node,
      fence: fence(),
      now,
      state: 'running',
      dueAt: now,
    });
    const outcome: RunOutcome = {
      state: fail ? 'failed' : 'succeeded',
      finishedAt: now,
      exitCode: fail ? 1 : 0,
      signal: null,
      error: fail ? (message ?? 'reported failed with sched ping --fail') : null,
      stdoutTail: fail ? '' : (message ?? ''),
      stderrTail: '',
    };
    const deliveries = await notices.deliveriesFor(job, run.id, outcome, false);
    const finished = await store.finishRun(run.id, outcome, undefined, deliveries);
    events.emit('run:finished', finished.run);
    if (fail) events.emit('run:dead', finished.run);
    if (deliveries.length > 0) this.options.onDeliveries();
    return finished.run;
  }

  /** Sends a test message to each of the job's targets at once, and says what each answered. */
  async test({ ref }: ParsedParams<'notify.test'>): Promise<NotifyTestResult> {
    const { lookup, clock, newId, defaults, send } = this.options;
    const job = await lookup.find(ref);
    const { targets } = resolveAlerts(job, defaults);
    if (targets.length === 0) {
      throw new SchedError('VALIDATION_FAILED', `Job ${job.name} has no notification targets.`, {
        hint: `Give it one with \`sched update ${job.name} --notify URL\`, or set targets under [notify] in config.toml.`,
        details: { jobId: job.id },
      });
    }
    const answers = await Promise.all(
      targets.map(async (target) => {
        const answer = await send(target, buildMessage('test', newId(), job, null, '', clock.now()));
        return { target: describeTarget(target), ...answer };
      }),
    );
    return { job: { id: job.id, name: job.name }, targets: answers };
  }

  async list({ jobRef, failed, limit }: ParsedParams<'notify.list'>): Promise<{ items: DeliveryView[] }> {
    const jobId = jobRef === undefined ? undefined : (await this.options.lookup.find(jobRef)).id;
    const rows = await this.options.store.listDeliveries({
      limit,
      jobId,
      states: failed ? ['failed'] : undefined,
    });
    return { items: rows.map(toView) };
  }

  async withDetail(detail: JobDetail): Promise<JobDetail> {
    const rows = await this.options.store.listDeliveries({ limit: DETAIL_DELIVERIES, jobId: detail.job.id });
    return {
      ...detail,
      deliveries: rows.map(toView),
      overdueSince: this.options.overdueJobs().get(detail.job.id)?.since ?? null,
    };
  }

  withOverdue(page: Page<Job>): Page<Job> {
    const overdue = this.options.overdueJobs();
    if (overdue.size === 0) return page;
    return {
      ...page,
      items: page.items.map((job) => {
        const mark = overdue.get(job.id);
        return mark === undefined ? job : { ...job, overdueSince: mark.since };
      }),
    };
  }
}

function toView(delivery: Delivery): DeliveryView {
  const { dedupKey: _key, ...rest } = delivery;
  return { ...rest, target: describeStoredTarget(delivery.target) };
}

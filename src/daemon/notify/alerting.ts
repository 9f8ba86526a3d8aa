import fs from 'node:fs';
import { SchedError } from '../../core/errors.js';
import type { Job } from '../../core/job.js';
import type { NewDelivery } from '../../core/notify/delivery.js';
import type { NotifyMessage } from '../../core/notify/message.js';
import { DEFAULT_THROTTLE, type NotifyDefaults, type Throttle } from '../../core/notify/plan.js';
import type { RunOutcome } from '../../core/run.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';
import type { JobLookup } from '../job-lookup.js';
import type { Service } from '../service.js';
import { AlertRequests } from './alert-requests.js';
import { NotificationDispatcher } from './dispatcher.js';
import { OverdueWatch } from './overdue-watch.js';
import { RunNotices } from './run-notices.js';
import { sendToTarget, type TargetAnswer, type TransportSettings } from './transports.js';

/** The daemon's `[notify]` settings, resolved at start. */
export interface NotifySettings {
  defaults: NotifyDefaults;
  throttle: Throttle;
  /** Where the webhook signing secret is read from at start (never from the config text itself). */
  webhookSecretFile: string | null;
  smtpUrl: string | null;
  from: string;
}

export const DEFAULT_NOTIFY_SETTINGS: NotifySettings = {
  defaults: { targets: [], on: null },
  throttle: DEFAULT_THROTTLE,
  webhookSecretFile: null,
  smtpUrl: null,
  from: 'sched@localhost',
};

const SEND_TIMEOUT_MS = 15_000;

export interface AlertingDeps {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  lookup: JobLookup;
  newId: () => string;
  node: string;
  fence: () => number;
  settings?: NotifySettings;
  /** Whether other daemons write the store too; alone, nothing needs polling for their writes. */
  othersWrite?: boolean;
  /** Tests replace the network. */
  send?: (target: string, message: NotifyMessage) => Promise<TargetAnswer>;
}

/**
 * Notifications and the dead-man's switch, as the daemon wires them: what a run's end adds to its
 * transaction, the services that send and watch, and the requests they answer.
 */
export class Alerting implements Service {
  readonly name = 'alerting';
  readonly notices: RunNotices;
  readonly dispatcher: NotificationDispatcher;
  readonly watch: OverdueWatch;
  readonly requests: AlertRequests;
  /** Started in this order, stopped in reverse. */
  readonly services: Service[];
  private readonly runsWithDeliveries = new Set<string>();

  constructor(deps: AlertingDeps) {
    const settings = deps.settings ?? DEFAULT_NOTIFY_SETTINGS;
    const transport: TransportSettings = {
      webhookSecret: readSecret(settings.webhookSecretFile),
      smtpUrl: settings.smtpUrl,
      from: settings.from,
      timeoutMs: SEND_TIMEOUT_MS,
    };
    const send = deps.send ?? ((target, message) => sendToTarget(target, message, transport));
    const { store, clock, events, newId, node } = deps;
    this.notices = new RunNotices({ store, clock, events, newId, defaults: settings.defaults });
    this.dispatcher = new NotificationDispatcher({
      store,
      clock,
      events,
      newId,
      throttle: settings.throttle,
      send,
      ...(deps.othersWrite === false ? { pollMs: null } : {}),
    });
    const wake = () => this.dispatcher.wake();
    this.watch = new OverdueWatch({
      store,
      clock,
      events,
      newId,
      node,
      defaults: settings.defaults,
      onDeliveries: wake,
      ...(deps.othersWrite === false ? { checkEveryMs: null } : {}),
    });
    this.requests = new AlertRequests({
      ...deps,
      notices: this.notices,
      defaults: settings.defaults,
      send,
      overdueJobs: () => this.watch.overdueJobs(),
      onDeliveries: wake,
    });
    // Only a run whose end stored deliveries wakes the dispatcher, once that end is committed.
    for (const event of ['run:finished', 'run:lost'] as const)
      events.on(event, (run) => {
        if (this.runsWithDeliveries.delete(run.id)) wake();
      });
    this.services = [this.dispatcher, this.watch];
  }

  /** For RunLauncher: the deliveries a run's end writes with it. */
  deliveriesFor = async (
    job: Job,
    runId: string,
    outcome: RunOutcome,
    retrying: boolean,
  ): Promise<NewDelivery[]> => {
    const deliveries = await this.notices.deliveriesFor(job, runId, outcome, retrying);
    if (deliveries.length > 0) this.runsWithDeliveries.add(runId);
    return deliveries;
  };

  async start(): Promise<void> {
    for (const service of this.services) await service.start();
  }

  async stop(): Promise<void> {
    for (const service of [...this.services].reverse()) await service.stop();
  }
}

/** The secret's file, trimmed; a missing or unreadable file is a start-up error that names it. */
function readSecret(file: string | null): string | null {
  if (file === null) return null;
  let secret: string;
  try {
    secret = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new SchedError(
      'VALIDATION_FAILED',
      `Cannot read the webhook secret file ${file} ([notify] webhook_secret_file): ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}.`,
      {
        hint: 'Create the file with the secret on one line (readable by the daemon only), or remove the setting.',
      },
    );
  }
  return secret === '' ? null : secret;
}

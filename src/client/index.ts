/**
 * `sched/client`: the typed client library. Everything here is what a program that schedules work with
 * sched needs; the CLI and the dashboard use the same.
 */
export { SchedClient, type ClientTarget, type SocketTarget } from './sched-client.js';
export type { RemoteTarget } from './https-connection.js';
export type { EventSubscription, SubscribeOptions } from './event-subscription.js';
export { droppedReason } from './event-subscription.js';
export { SchedError, ERROR_CODES, type ErrorCode, type ErrorShape } from '../core/errors.js';
export type {
  Method,
  Params,
  Results,
  Page,
  StreamEvent,
  StreamEventType,
  StreamEvents,
  JobDetail,
  JobListPage,
  DaemonStatus,
  ClusterStatus,
} from '../ipc/protocol.js';
export type { Job } from '../core/job.js';
export type { Run, RunSummary, RunState } from '../core/run.js';

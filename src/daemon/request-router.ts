import { SchedError, type ErrorShape } from '../core/errors.js';
import {
  isMethod,
  requestSchemas,
  type Method,
  type ParsedParams,
  type RequestMessage,
  type ResponseMessage,
  type Results,
} from '../ipc/protocol.js';
import type { Caller } from '../core/access/caller.js';
import type { ServerConnection } from '../ipc/transport.js';
import type { ReplySecrets } from './secrets/reply-secrets.js';
import type { JobService } from './job-service.js';
import type { AlertRequests } from './notify/alert-requests.js';
import type { OccurrenceService } from './occurrence-service.js';
import type { RunService } from './run-service.js';

/** Requests that act on the daemon or on the connection itself rather than on jobs and runs. */
export interface DaemonControl {
  subscribe(
    requestId: number,
    connection: ServerConnection,
    params: ParsedParams<'events.subscribe'>,
  ): Promise<Results['events.subscribe']>;
  stop(params: ParsedParams<'daemon.stop'>): Promise<Results['daemon.stop']>;
  clusterStatus(): Promise<Results['cluster.status']>;
  backup(params: ParsedParams<'store.backup'>): Promise<Results['store.backup']>;
  rotateKey(caller: Caller, params: ParsedParams<'key.rotate'>): Promise<Results['key.rotate']>;
}

/** Who is asking, and what leaves the daemon in a reply. */
export interface RequestAccess {
  callerOf(connection: ServerConnection): Caller;
  replies: ReplySecrets;
}

interface RequestContext {
  requestId: number;
  connection: ServerConnection;
  caller: Caller;
}

type Handlers = { [M in Method]: (params: never, context: RequestContext) => Promise<unknown> };

/** Checks each request at the edge, dispatches it to the service that owns it and shapes the reply. */
export function createRequestRouter(
  jobs: JobService,
  runs: RunService,
  occurrences: OccurrenceService,
  control: DaemonControl,
  onBug: (error: Error) => void,
  alerts: AlertRequests,
  access: RequestAccess,
) {
  const handlers: Handlers = {
    'daemon.stop': (params) => control.stop(params),
    'cluster.status': () => control.clusterStatus(),
    'store.backup': (params) => control.backup(params),
    'key.rotate': (params, { caller }) => control.rotateKey(caller, params),
    'events.subscribe': (params, { requestId, connection }) =>
      control.subscribe(requestId, connection, params),
    'daemon.status': () => jobs.status(),
    'job.add': (params) => jobs.add(params),
    'job.list': async (params) => alerts.withOverdue(await jobs.list(params)),
    'job.get': async (params) => alerts.withDetail(await jobs.get(params)),
    'job.update': (params) => jobs.update(params),
    'job.cancel': (params) => jobs.cancel(params),
    'job.pause': (params) => jobs.pause(params),
    'job.resume': (params) => jobs.resume(params),
    'job.trigger': (params) => runs.trigger(params),
    'run.list': (params) => runs.list(params),
    'run.get': (params) => runs.get(params),
    'run.kill': (params) => runs.kill(params),
    'run.retry': (params) => runs.retry(params),
    'run.redrive': (params) => runs.redrive(params),
    'audit.list': (params) => jobs.listAudit(params),
    'job.why': (params) => occurrences.why(params),
    'job.occurrences': (params) => occurrences.list(params),
    'job.backfill': (params) => occurrences.backfill(params),
    'job.ping': (params) => alerts.ping(params),
    'notify.test': (params) => alerts.test(params),
    'notify.list': (params) => alerts.list(params),
  };

  return async function route(
    message: RequestMessage,
    connection: ServerConnection,
  ): Promise<ResponseMessage> {
    try {
      if (!isMethod(message.method)) {
        throw new SchedError('VALIDATION_FAILED', `Unknown request "${message.method}".`, {
          hint: 'The client and daemon versions may differ; restart the daemon.',
        });
      }
      const parsed = requestSchemas[message.method].safeParse(message.params ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new SchedError(
          'VALIDATION_FAILED',
          `Invalid ${issue.path.join('.') || 'request'}: ${issue.message}.`,
          {
            details: {
              issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
            },
          },
        );
      }
      const handler = handlers[message.method] as (
        params: unknown,
        context: RequestContext,
      ) => Promise<unknown>;
      const caller = access.callerOf(connection);
      const result = await access.replies.reply(message.method, parsed.data, caller, () =>
        handler(parsed.data, { requestId: message.id, connection, caller }),
      );
      return { kind: 'response', id: message.id, ok: true, result };
    } catch (error) {
      return { kind: 'response', id: message.id, ok: false, error: toErrorShape(error as Error, onBug) };
    }
  };
}

function toErrorShape(error: Error, onBug: (error: Error) => void): ErrorShape {
  if (error instanceof SchedError) return error.toShape();
  onBug(error);
  return {
    code: 'INTERNAL',
    message: `Internal error in the daemon: ${error.message}`,
    hint: 'This is a bug in sched; the daemon log has the details.',
  };
}

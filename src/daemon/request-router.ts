import type { z } from 'zod';
import type { Caller } from '../core/access/roles.js';
import { SchedError, type ErrorShape } from '../core/errors.js';
import {
  isMethod,
  requestSchemas,
  type Method,
  type JobListPage,
  type ParsedParams,
  type RequestMessage,
  type ResponseMessage,
  type Results,
} from '../ipc/protocol.js';
import type { ServerConnection } from '../ipc/transport.js';
import { actingFor } from './access/request-caller.js';
import type { ApiTokens } from './access/api-tokens.js';
import type { ClusterKeyService } from './cluster/cluster-key-service.js';
import type { RequestGuard } from './access/request-guard.js';
import { isStoreUnreachable, unreachableReason } from '../store/unreachable.js';
import type { LocalReads } from './autonomy/local-reads.js';
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
  changeVoters(
    action: 'join' | 'leave',
    member: string | undefined,
  ): Promise<Results['cluster.join'] | Results['cluster.leave']>;
  backup(params: ParsedParams<'store.backup'>): Promise<Results['store.backup']>;
  rotateKey(params: ParsedParams<'key.rotate'>): Promise<Results['key.rotate']>;
  tokens: Pick<ApiTokens, 'create' | 'list' | 'revoke'>;
  clusterKeys: Pick<ClusterKeyService, 'list' | 'install' | 'use' | 'remove'>;
}

/** A socket request carries its connection; a request from the HTTPS API has none. */
interface RequestContext {
  requestId: number;
  connection: ServerConnection | null;
}

/** Requests that need a connection of their own to answer on (the API streams events its own way). */
const CONNECTION_METHODS: ReadonlySet<Method> = new Set(['events.subscribe']);

export type Reply = { ok: true; result: unknown } | { ok: false; error: ErrorShape };

export interface RequestRouter {
  /** A socket request, from the caller the kernel names for its connection. */
  route(message: RequestMessage, connection: ServerConnection): Promise<ResponseMessage>;
  /**
   * A request from another edge (the HTTPS API) for a caller that edge verified (a token's); `connection`
   * is where a stream of events goes (Server-Sent Events), for the requests that start one.
   */
  call(method: Method, params: unknown, caller: Caller, connection?: ServerConnection): Promise<Reply>;
}

type Handlers = { [M in Method]: (params: never, context: RequestContext) => Promise<unknown> };

/**
 * Checks each request at the edge (its params, then whether its caller may make it), dispatches it to the
 * service that owns it, acting for that caller, and shapes the reply.
 */
export function createRequestRouter(
  jobs: JobService,
  runs: RunService,
  occurrences: OccurrenceService,
  control: DaemonControl,
  onBug: (error: Error) => void,
  alerts: AlertRequests,
  guard: RequestGuard,
  replies: ReplySecrets,
  localReads: LocalReads | null = null,
  /** Said with `ls` and `show` answered from a copy that may be stale (a peer without a majority). */
  staleNotice: () => string | null = () => null,
): RequestRouter {
  // While the store cannot be reached, `ls` and `show` read this node's local copy (and say it may be stale).
  const orLocalCopy = async <T extends { stale?: string }>(
    read: () => Promise<T>,
    local: (reads: LocalReads) => T,
  ): Promise<T> => {
    try {
      const answer = await read();
      const stale = staleNotice();
      return stale === null ? answer : { ...answer, stale };
    } catch (error) {
      if (localReads === null || !isStoreUnreachable(error)) throw error;
      return local(localReads);
    }
  };
  const handlers: Handlers = {
    'daemon.stop': (params) => control.stop(params),
    'cluster.status': () => control.clusterStatus(),
    'cluster.keys.list': () => control.clusterKeys.list(),
    'cluster.keys.install': (params) => control.clusterKeys.install(params),
    'cluster.keys.use': (params) => control.clusterKeys.use(params),
    'cluster.keys.remove': (params) => control.clusterKeys.remove(params),
    'cluster.join': ({ member }) => control.changeVoters('join', member),
    'cluster.leave': ({ member }) => control.changeVoters('leave', member),
    'store.backup': (params) => control.backup(params),
    'key.rotate': (params) => control.rotateKey(params),
    'events.subscribe': (params, { requestId, connection }) =>
      control.subscribe(requestId, connection!, params),
    'token.create': (params) => control.tokens.create(params),
    'token.list': () => control.tokens.list(),
    'token.revoke': (params) => control.tokens.revoke(params),
    'daemon.status': () => jobs.status(),
    'job.add': (params) => jobs.add(params),
    'job.list': (params: ParsedParams<'job.list'>) =>
      orLocalCopy(
        async (): Promise<JobListPage> => alerts.withOverdue(await jobs.list(params)),
        (reads) => reads.list(params),
      ),
    'job.get': (params: ParsedParams<'job.get'>) =>
      orLocalCopy(
        async () => alerts.withDetail(await jobs.get(params)),
        (reads) => reads.get(params),
      ),
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

  const answer = async (
    method: string,
    params: unknown,
    admit: (method: Method, params: Record<string, unknown>) => Promise<Caller>,
    context: RequestContext,
  ): Promise<Reply> => {
    try {
      if (!isMethod(method) || (context.connection === null && CONNECTION_METHODS.has(method))) {
        throw new SchedError('VALIDATION_FAILED', `Unknown request "${method}".`, {
          hint: 'The client and daemon versions may differ; restart the daemon.',
        });
      }
      const parsed = requestSchemas[method].safeParse(params ?? {});
      if (!parsed.success) throw invalidParams(parsed.error);
      const caller = await admit(method, parsed.data as Record<string, unknown>);
      const handler = handlers[method] as (params: unknown, context: RequestContext) => Promise<unknown>;
      const result = await actingFor(caller, () =>
        replies.reply(method, parsed.data, () => handler(parsed.data, context)),
      );
      return { ok: true, result };
    } catch (error) {
      return { ok: false, error: toErrorShape(error as Error, onBug) };
    }
  };

  return {
    route: async (message, connection) => {
      const reply = await answer(
        message.method,
        message.params,
        (method, params) => guard.admit(method, params, connection),
        { requestId: message.id, connection },
      );
      return { kind: 'response', id: message.id, ...reply } as ResponseMessage;
    },
    call: (method, params, caller, connection) =>
      answer(method, params, (m, p) => guard.admitCaller(m, p, caller), {
        requestId: connection?.id ?? 0,
        connection: connection ?? null,
      }),
  };
}

function invalidParams(error: z.ZodError): SchedError {
  const issue = error.issues[0]!;
  return new SchedError(
    'VALIDATION_FAILED',
    `Invalid ${issue.path.join('.') || 'request'}: ${issue.message}.`,
    {
      details: { issues: error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
    },
  );
}

function toErrorShape(error: Error, onBug: (error: Error) => void): ErrorShape {
  if (error instanceof SchedError) return error.toShape();
  if (isStoreUnreachable(error)) return storeUnavailable(error).toShape();
  onBug(error);
  return {
    code: 'INTERNAL',
    message: `Internal error in the daemon: ${error.message}`,
    hint: 'This is a bug in sched; the daemon log has the details.',
  };
}

/** A request that needed the store while it cannot be reached: nothing was read or changed. */
function storeUnavailable(error: Error): SchedError {
  return new SchedError(
    'STORE_UNAVAILABLE',
    `The store cannot be reached (${unreachableReason(error)}); nothing was read or changed.`,
    {
      hint:
        'This node keeps firing every-host jobs from its local copy meanwhile; try again once the store is back ' +
        '(`sched cluster status` says whether it is). `sched ls` and `sched show` read the local copy until then.',
    },
  );
}

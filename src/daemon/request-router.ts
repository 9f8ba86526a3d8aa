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
import { requestActor, type Actor } from './access/request-caller.js';
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
    actor: Actor,
  ): Promise<Results['cluster.join'] | Results['cluster.leave']>;
  backup(params: ParsedParams<'store.backup'>): Promise<Results['store.backup']>;
  rotateKey(params: ParsedParams<'key.rotate'>, actor: Actor): Promise<Results['key.rotate']>;
  tokens: Pick<ApiTokens, 'create' | 'list' | 'revoke'>;
  clusterKeys: Pick<ClusterKeyService, 'list' | 'install' | 'use' | 'remove'>;
}

/** A socket request carries its connection; a request from the HTTPS API has none. */
interface RequestContext {
  requestId: number;
  connection: ServerConnection | null;
}

/** What a handler is given besides the params: the request's context and whom it acts for. */
interface HandlerContext extends RequestContext {
  actor: Actor;
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

type Handlers = { [M in Method]: (params: never, context: HandlerContext) => Promise<unknown> };

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
    'cluster.keys.install': (params, { actor }) => control.clusterKeys.install(params, actor.audited),
    'cluster.keys.use': (params, { actor }) => control.clusterKeys.use(params, actor.audited),
    'cluster.keys.remove': (params, { actor }) => control.clusterKeys.remove(params, actor.audited),
    'cluster.join': ({ member }, { actor }) => control.changeVoters('join', member, actor),
    'cluster.leave': ({ member }, { actor }) => control.changeVoters('leave', member, actor),
    'store.backup': (params) => control.backup(params),
    'key.rotate': (params, { actor }) => control.rotateKey(params, actor),
    'events.subscribe': (params, { requestId, connection }) =>
      control.subscribe(requestId, connection!, params),
    'token.create': (params, { actor }) => control.tokens.create(params, actor),
    'token.list': () => control.tokens.list(),
    'token.revoke': (params, { actor }) => control.tokens.revoke(params, actor),
    'daemon.status': () => jobs.status(),
    'job.add': (params, { actor }) => jobs.add(params, actor),
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
    'job.update': (params, { actor }) => jobs.update(params, actor),
    'job.cancel': (params, { actor }) => jobs.cancel(params, actor),
    'job.pause': (params, { actor }) => jobs.pause(params, actor),
    'job.resume': (params, { actor }) => jobs.resume(params, actor),
    'job.trigger': (params, { actor }) => runs.trigger(params, actor),
    'run.list': (params) => runs.list(params),
    'run.get': (params) => runs.get(params),
    'run.kill': (params, { actor }) => runs.kill(params, actor),
    'run.retry': (params, { actor }) => runs.retry(params, actor),
    'run.redrive': (params, { actor }) => runs.redrive(params, actor),
    'audit.list': (params) => jobs.listAudit(params),
    'job.why': (params) => occurrences.why(params),
    'job.occurrences': (params) => occurrences.list(params),
    'job.backfill': (params, { actor }) => occurrences.backfill(params, actor),
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
      const handler = handlers[method] as (params: unknown, context: HandlerContext) => Promise<unknown>;
      const actor = requestActor(caller);
      const result = await replies.reply(method, parsed.data, caller, () =>
        handler(parsed.data, Object.assign({}, context, { actor })),
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

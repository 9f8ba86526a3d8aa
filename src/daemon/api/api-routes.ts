import { z } from 'zod';
import { requestSchemas, type Method } from '../../ipc/protocol.js';
import type { Run } from '../../core/run.js';

/** The parts of an HTTP request a route reads, as its schemas checked them. */
interface RequestParts<P, Q, B, H> {
  params: P;
  query: Q;
  body: B;
  headers: H;
}

/**
 * One API route: the socket request it makes, the schemas of its path, query, body and headers (which
 * fastify checks and @fastify/swagger documents), and how those become the request's params, which the
 * daemon then checks again with the socket's own schema, as any socket request.
 */
export interface ApiRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** fastify's form: `:name` for a path parameter. */
  url: string;
  request: Method;
  /** The OpenAPI operationId; the request's method name unless said (two routes may make one request). */
  operationId?: string;
  summary: string;
  /** The status of a success; 200 unless said. */
  status?: number;
  schema: { params?: z.ZodType; querystring?: z.ZodType; body?: z.ZodType; headers?: z.ZodType };
  toParams(parts: RequestParts<unknown, unknown, unknown, unknown>): Record<string, unknown>;
  /** What the reply shows of the request's result; the result itself unless said. */
  fromResult?(result: unknown): unknown;
  /** The reply is a Server-Sent Events stream that the request starts, not one JSON body. */
  stream?: true;
}

function route<
  P extends z.ZodType = z.ZodUndefined,
  Q extends z.ZodType = z.ZodUndefined,
  B extends z.ZodType = z.ZodUndefined,
  H extends z.ZodType = z.ZodUndefined,
>(spec: {
  method: ApiRoute['method'];
  url: string;
  request: Method;
  operationId?: string;
  summary: string;
  status?: number;
  schema: { params?: P; querystring?: Q; body?: B; headers?: H };
  toParams(parts: RequestParts<z.output<P>, z.output<Q>, z.output<B>, z.output<H>>): Record<string, unknown>;
  fromResult?(result: unknown): unknown;
  stream?: true;
}): ApiRoute {
  return spec as unknown as ApiRoute;
}

// Query strings are text: lists come comma-separated, numbers and booleans as their digits and words.
const list = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  )
  .describe('comma-separated');
const labelList = z
  .string()
  .regex(/^[^=,]+=[^,]*(,[^=,]+=[^,]*)*$/, 'KEY=VALUE pairs, comma-separated')
  .transform((text) =>
    Object.fromEntries(text.split(',').map((pair) => pair.split('=', 2) as [string, string])),
  )
  .describe('KEY=VALUE pairs, comma-separated');
const integer = z.coerce.number().int();
const flag = z.enum(['true', 'false']).transform((text) => text === 'true');

const idempotencyHeaders = z.object({
  'idempotency-key': requestSchemas['job.add'].shape.idempotencyKey.describe(
    'Makes a repeated request do nothing twice.',
  ),
});
const ifMatchHeaders = z.object({
  'if-match': z
    .string()
    .regex(/^(W\/)?"?\d{1,15}"?$/, 'the job version, such as "3"')
    .transform((text) => Number(text.replace(/\D/g, '')))
    .optional()
    .describe('The version the change is made to; a newer one refuses it (412).'),
});
const pageQuery = {
  limit: integer.pipe(requestSchemas['job.list'].shape.limit.unwrap()).optional(),
  cursor: requestSchemas['job.list'].shape.cursor,
};
const jobPath = z.object({ ref: requestSchemas['job.get'].shape.ref.describe('The job’s id or name.') });
const runPath = z.object({
  id: requestSchemas['run.get'].shape.id.describe('The run’s id, or a unique prefix of it.'),
});

const RESOURCE_ROUTES: readonly ApiRoute[] = [
  route({
    method: 'POST',
    url: '/v1/jobs',
    request: 'job.add',
    summary: 'Add a job.',
    status: 201,
    schema: { body: requestSchemas['job.add'].omit({ idempotencyKey: true }), headers: idempotencyHeaders },
    toParams: ({ body, headers }) => ({ ...body, idempotencyKey: headers['idempotency-key'] }),
  }),
  route({
    method: 'GET',
    url: '/v1/jobs',
    request: 'job.list',
    summary: 'List jobs, a page at a time.',
    schema: {
      querystring: z.object({
        ...pageQuery,
        state: list.optional(),
        label: labelList.optional(),
        owner: requestSchemas['job.list'].shape.owner,
      }),
    },
    toParams: ({ query }) => ({
      limit: query.limit,
      cursor: query.cursor,
      states: query.state,
      labels: query.label,
      owner: query.owner,
    }),
  }),
  route({
    method: 'GET',
    url: '/v1/jobs/:ref',
    request: 'job.get',
    summary: 'A job, its next instants and latest runs.',
    schema: {
      params: jobPath,
      querystring: z.object({
        upcoming: integer.pipe(requestSchemas['job.get'].shape.upcoming.unwrap()).optional(),
      }),
    },
    toParams: ({ params, query }) => ({ ref: params.ref, upcoming: query.upcoming }),
  }),
  route({
    method: 'PATCH',
    url: '/v1/jobs/:ref',
    request: 'job.update',
    summary: 'Change a job; with If-Match, only if it is still at that version.',
    schema: { params: jobPath, body: requestSchemas['job.update'].shape.patch, headers: ifMatchHeaders },
    toParams: ({ params, body, headers }) => ({
      ref: params.ref,
      patch: body,
      ifVersion: headers['if-match'],
    }),
  }),
  route({
    method: 'DELETE',
    url: '/v1/jobs/:ref',
    request: 'job.cancel',
    summary: 'Cancel a job.',
    schema: { params: jobPath, querystring: z.object({ force: flag.optional() }) },
    toParams: ({ params, query }) => ({ ref: params.ref, force: query.force }),
  }),
  route({
    method: 'POST',
    url: '/v1/jobs/:ref/pause',
    request: 'job.pause',
    summary: 'Pause a job.',
    schema: { params: jobPath },
    toParams: ({ params }) => ({ ref: params.ref }),
  }),
  route({
    method: 'POST',
    url: '/v1/jobs/:ref/resume',
    request: 'job.resume',
    summary: 'Resume a paused job.',
    schema: { params: jobPath },
    toParams: ({ params }) => ({ ref: params.ref }),
  }),
  route({
    method: 'POST',
    url: '/v1/jobs/:ref/trigger',
    request: 'job.trigger',
    summary: 'Run a job now.',
    status: 201,
    schema: { params: jobPath, headers: idempotencyHeaders },
    toParams: ({ params, headers }) => ({ ref: params.ref, idempotencyKey: headers['idempotency-key'] }),
  }),
  route({
    method: 'GET',
    url: '/v1/jobs/:ref/history',
    request: 'run.list',
    summary: 'A job’s runs, newest first.',
    schema: {
      params: jobPath,
      querystring: z.object({
        ...pageQuery,
        state: list.optional(),
        since: integer.optional().describe('Epoch ms'),
        until: integer.optional().describe('Epoch ms'),
      }),
    },
    toParams: ({ params, query }) => ({
      jobRef: params.ref,
      limit: query.limit,
      cursor: query.cursor,
      states: query.state,
      since: query.since,
      until: query.until,
    }),
  }),
  route({
    method: 'GET',
    url: '/v1/jobs/:ref/occurrences',
    request: 'job.occurrences',
    summary: 'A job’s occurrence ledger: instants that did not simply run, and why.',
    schema: { params: jobPath, querystring: z.object(pageQuery) },
    toParams: ({ params, query }) => ({ ref: params.ref, limit: query.limit, cursor: query.cursor }),
  }),
  route({
    method: 'GET',
    url: '/v1/runs/:id',
    request: 'run.get',
    summary: 'A run.',
    schema: { params: runPath },
    toParams: ({ params }) => ({ id: params.id }),
  }),
  route({
    method: 'POST',
    url: '/v1/runs/:id/kill',
    request: 'run.kill',
    summary: 'Kill a running run.',
    schema: { params: runPath },
    toParams: ({ params }) => ({ id: params.id }),
  }),
  route({
    method: 'POST',
    url: '/v1/runs/:id/retry',
    request: 'run.retry',
    summary: 'Retry a finished run (or, with now=true, start a waiting one at once).',
    status: 201,
    schema: { params: runPath, querystring: z.object({ now: flag.optional() }) },
    toParams: ({ params, query }) => ({ id: params.id, now: query.now }),
  }),
  route({
    method: 'GET',
    url: '/v1/runs/:id/logs',
    request: 'run.get',
    operationId: 'run.logs',
    summary: 'A run’s output: the stored tails of stdout and stderr (an HTTP run’s response body).',
    schema: { params: runPath },
    toParams: ({ params }) => ({ id: params.id }),
    fromResult: (result) => {
      const run = result as Run;
      return { id: run.id, state: run.state, stdout: run.stdoutTail, stderr: run.stderrTail };
    },
  }),
  route({
    method: 'GET',
    url: '/v1/events',
    request: 'events.subscribe',
    summary:
      'The daemon’s events as Server-Sent Events; with Last-Event-ID, the retained events after that id come first. A `stream:subscribed` message says the subscription is in place (its data: `{subscribed, types, shared}`).',
    stream: true,
    schema: {
      querystring: z.object({
        types: list.optional(),
        runId: requestSchemas['events.subscribe'].shape.runId,
      }),
      headers: z.object({
        'last-event-id': z
          .string()
          .regex(/^\d{1,15}$/, 'the id of the last event received')
          .transform(Number)
          .optional(),
      }),
    },
    toParams: ({ query, headers }) => ({
      types: query.types,
      runId: query.runId,
      since: headers['last-event-id'],
    }),
  }),
  route({
    method: 'GET',
    url: '/v1/cluster',
    request: 'cluster.status',
    summary: 'Nodes, coordinator and term, and shards per node.',
    schema: {},
    toParams: () => ({}),
  }),
  route({
    method: 'GET',
    url: '/v1/health',
    request: 'daemon.status',
    summary: 'The daemon answering: its version, node, jobs and running runs.',
    schema: {},
    toParams: () => ({}),
  }),
];

/**
 * Requests `/v1/call` does not take. `events.subscribe` streams, at /v1/events. `daemon.stop`,
 * `store.backup` and the cluster key changes act on the daemon's host itself (its process, a file there):
 * a shell on that host does them, not a token from the network, and a cluster key never crosses it.
 */
const HOST_ONLY: ReadonlySet<Method> = new Set([
  'events.subscribe',
  'daemon.stop',
  'store.backup',
  'cluster.keys.install',
  'cluster.keys.use',
  'cluster.keys.remove',
]);

/**
 * `POST /v1/call/{method}`: any other socket request, its params as the JSON body and its result as the
 * reply, exactly as on the socket. The resource routes above are for people writing HTTP by hand; this is
 * what `SchedClient` (and so `sched --remote`) uses, so a command sends the same params and reads the
 * same result over either transport, with no per-method mapping to keep in step. One route per method,
 * made from the protocol's table, so each is documented with its own body schema; the daemon then checks
 * the params with that schema and admits the caller as for any request. `Idempotency-Key` fills in the
 * params' `idempotencyKey` where the method has one.
 */
const CALL_ROUTES: readonly ApiRoute[] = (Object.keys(requestSchemas) as Method[])
  .filter((method) => !HOST_ONLY.has(method))
  .map((method) => {
    const body = requestSchemas[method];
    const idempotent = Object.hasOwn(body.shape, 'idempotencyKey');
    return route({
      method: 'POST',
      url: `/v1/call/${method}`,
      request: method,
      operationId: `call.${method}`,
      summary: `The socket request ${method}: its params as the body, its result as the reply.`,
      schema: idempotent ? { body, headers: idempotencyHeaders } : { body },
      toParams: ({ body: params, headers }) => {
        const key = (headers as { 'idempotency-key'?: string } | undefined)?.['idempotency-key'];
        const given = params as Record<string, unknown>;
        return idempotent && given['idempotencyKey'] === undefined && key !== undefined
          ? { ...given, idempotencyKey: key }
          : given;
      },
    });
  });

export const API_ROUTES: readonly ApiRoute[] = [...RESOURCE_ROUTES, ...CALL_ROUTES];

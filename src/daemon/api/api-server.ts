import type { AddressInfo, Socket } from 'node:net';
import fastifySwagger from '@fastify/swagger';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Caller } from '../../core/access/roles.js';
import { SchedError, type ErrorShape } from '../../core/errors.js';
import { REQUEST_LIMITS } from '../../ipc/frame-codec.js';
import type { Method } from '../../ipc/protocol.js';
import type { Clock } from '../clock.js';
import type { Reply } from '../request-router.js';
import type { ServerConnection } from '../../ipc/transport.js';
import { API_ROUTES, type ApiRoute } from './api-routes.js';
import type { ApiTls } from './api-tls.js';
import { SseConnection } from './sse-connection.js';
import { API_PATIENCE, requestDeadlines, type ApiPatience } from './api-patience.js';
import { ERROR_STATUS, errorHeaders } from './error-status.js';
import { refuseUnparsedRequest } from './unparsed-request.js';
import { dropUnreadBody } from './unread-body.js';

/** What the API needs of the daemon: one way to make a request for a verified caller, and to verify one. */
export interface ApiDeps {
  call(method: Method, params: unknown, caller: Caller, connection?: ServerConnection): Promise<Reply>;
  /** The caller behind an `Authorization` header from `remoteAddress`; throws UNAUTHENTICATED or RATE_LIMITED. */
  authenticate(authorization: string | undefined, remoteAddress: string): Promise<Caller>;
  version: string;
  clock: Clock;
  /** A bug (not a refusal) met while answering. */
  onBug(error: Error): void;
}

/** The socket's bound on a request: a job whose payload is within its 1 MiB limit fits with the rest of it. */
const API_BODY_LIMIT_BYTES = REQUEST_LIMITS.maxBytes;
export const OPENAPI_PATH = '/v1/openapi.json';
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
const MAX_PARAM_LENGTH = 500;

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

export interface ApiServer {
  app: FastifyInstance;
  /** Every route fastify registered (HEAD routes it adds for GET included), as its router has them. */
  routes: { method: string; url: string }[];
}

/**
 * The fastify instance of the API, ready to listen: with `tls` (as readApiTls read it) when the plan has
 * TLS, every route of API_ROUTES.
 */
export async function buildApiServer(
  tls: ApiTls | null,
  deps: ApiDeps,
  patience: ApiPatience = API_PATIENCE,
): Promise<ApiServer> {
  const server = {
    // Node answers a missing Host itself, with an empty body; the onRequest hook refuses it in the envelope.
    requireHostHeader: false,
    ...requestDeadlines(patience),
  };
  const common = {
    logger: false,
    bodyLimit: API_BODY_LIMIT_BYTES,
    requestTimeout: patience.requestMs,
    // An idle socket is dropped unanswered: later than a stalled request gets its 408, and than an event
    // stream's heartbeat.
    connectionTimeout: patience.requestMs + 5_000,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    return503OnClosing: true,
    clientErrorHandler: (error: Error, socket: Socket) => refuseUnparsedRequest(error, socket, patience),
    // What the router refuses before any route or hook: a path it cannot decode, a parameter too long.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) =>
      void sendError(reply, shapeOf(error, deps.onBug)),
    // Event streams never go idle: a stopping daemon must not wait for their clients to leave.
    forceCloseConnections: true,
  };
  const app = (tls === null
    ? Fastify({ ...common, http: server })
    : Fastify({
        ...common,
        https: { ...tls, ...server, minVersion: 'TLSv1.2', handshakeTimeout: patience.handshakeMs },
      })) as unknown as FastifyInstance;
  const routes: ApiServer['routes'] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'sched', version: deps.version, description: 'The sched daemon’s HTTPS API.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });

  app.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) throw missingHost();
    if (request.routeOptions.url === OPENAPI_PATH) return;
    request.caller = await deps.authenticate(request.headers.authorization, request.ip);
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') dropUnreadBody(request, reply, deps.clock);
    return sendError(reply, shapeOf(error, deps.onBug));
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      {
        code: 'VALIDATION_FAILED',
        message: `No such API route: ${request.method} ${request.url.split('?')[0]}.`,
        hint: `The routes are listed in ${OPENAPI_PATH}.`,
      },
      404,
    ),
  );

  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const spec of API_ROUTES) typed.route(routeOf(spec, deps));
  typed.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  await app.ready();
  return { app, routes };
}

function routeOf(spec: ApiRoute, deps: ApiDeps) {
  return {
    method: spec.method,
    url: spec.url,
    schema: { ...spec.schema, summary: spec.summary, operationId: spec.operationId ?? spec.request },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const params = spec.toParams({
        params: request.params,
        query: request.query,
        body: request.body,
        headers: request.headers,
      });
      if (spec.stream) return streamEvents(spec, params, request, reply, deps);
      const answer = await deps.call(spec.request, params, request.caller!);
      if (!answer.ok) return sendError(reply, answer.error);
      const result = spec.fromResult ? spec.fromResult(answer.result) : answer.result;
      return reply
        .code(spec.status ?? 200)
        .header('cache-control', 'no-store')
        .send(result);
    },
  };
}

let streams = 0;

/**
 * Starts a stream on a connection of its own: the daemon's event stream writes to the held response until
 * the client goes away. A refusal (access, bad params) still comes as an error envelope, before any event.
 */
async function streamEvents(
  spec: ApiRoute,
  params: Record<string, unknown>,
  request: FastifyRequest,
  reply: FastifyReply,
  deps: ApiDeps,
) {
  reply.hijack();
  const connection = new SseConnection((streams += 1), reply.raw, deps.clock);
  const answer = await deps.call(spec.request, params, request.caller!, connection);
  if (answer.ok) return connection.subscribed(answer.result);
  reply.raw.writeHead(ERROR_STATUS[answer.error.code] ?? 500, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...errorHeaders(answer.error),
  });
  reply.raw.end(JSON.stringify({ error: answer.error }));
}

function sendError(reply: FastifyReply, shape: ErrorShape, status = ERROR_STATUS[shape.code] ?? 500) {
  return reply
    .code(status)
    .headers({ 'cache-control': 'no-store', ...errorHeaders(shape) })
    .send({ error: shape });
}

/** What fastify or a hook threw, as the envelope says it: never a stack, and a bug reported as one. */
function shapeOf(error: FastifyError, onBug: (error: Error) => void): ErrorShape {
  if (error instanceof SchedError) return error.toShape();
  if (hasZodFastifySchemaValidationErrors(error)) {
    const issues = error.validation.map((issue) => ({
      path: [error.validationContext ?? 'request', ...issue.instancePath.split('/').filter(Boolean)].join(
        '.',
      ),
      message: issue.message ?? 'invalid',
    }));
    return {
      code: 'VALIDATION_FAILED',
      message: `Invalid ${issues[0]!.path}: ${issues[0]!.message}.`,
      hint: `The request's shape is in ${OPENAPI_PATH}.`,
      details: { issues },
    };
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return {
      code: 'VALIDATION_FAILED',
      message: 'The path is not valid percent-encoding (a % must be followed by two hex digits of UTF-8).',
      hint: 'Encode each path segment as encodeURIComponent does.',
    };
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return {
      code: 'VALIDATION_FAILED',
      message: `A path parameter is longer than ${MAX_PARAM_LENGTH} characters.`,
      hint: 'Name the job or run by its name or id.',
    };
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return {
      code: 'PAYLOAD_TOO_LARGE',
      message: `The request body is larger than ${API_BODY_LIMIT_BYTES} bytes.`,
      hint: `Send a smaller body: a request may be at most ${API_BODY_LIMIT_BYTES / 1024 / 1024} MiB, a job’s payload at most 1 MiB.`,
    };
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    // fastify's own refusals of malformed requests: bad JSON, an unsupported content type, and the like.
    return {
      code: 'VALIDATION_FAILED',
      message: `Malformed request: ${error.message}.`,
      hint: `See ${OPENAPI_PATH}.`,
    };
  }
  onBug(error);
  return {
    code: 'INTERNAL',
    message: `Internal error in the daemon: ${error.message}`,
    hint: 'This is a bug in sched; the daemon log has the details.',
  };
}

/** HTTP/1.1 requires a Host header (RFC 9112, 3.2); without one a request is refused. */
function missingHost(): SchedError {
  return new SchedError('VALIDATION_FAILED', 'An HTTP/1.1 request needs a Host header.', {
    hint: 'Send Host: with the address the request goes to, as HTTP clients do.',
  });
}

/** `host:port` as bound. */
export function boundAddress(app: FastifyInstance): string {
  const bound = app.server.address() as AddressInfo;
  return `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
}

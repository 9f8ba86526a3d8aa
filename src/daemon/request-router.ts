import { SchedError, type ErrorShape } from '../core/errors.js';
import {
  isMethod,
  requestSchemas,
  type Method,
  type RequestMessage,
  type ResponseMessage,
} from '../ipc/protocol.js';
import type { JobService } from './job-service.js';

type Handlers = { [M in Method]: (params: never) => Promise<unknown> };

/** Checks each request at the edge, dispatches it to the job service and shapes the reply. */
export function createRequestRouter(service: JobService, onBug: (error: Error) => void) {
  const handlers: Handlers = {
    'daemon.status': () => service.status(),
    'job.add': (params) => service.add(params),
    'job.list': (params) => service.list(params),
    'job.get': (params) => service.get(params),
    'job.update': (params) => service.update(params),
    'job.cancel': (params) => service.cancel(params),
    'job.pause': (params) => service.pause(params),
    'job.resume': (params) => service.resume(params),
    'job.trigger': (params) => service.trigger(params),
    'run.list': (params) => service.listRuns(params),
    'run.get': (params) => service.getRun(params),
  };

  return async function route(message: RequestMessage): Promise<ResponseMessage> {
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
      const handler = handlers[message.method] as (params: unknown) => Promise<unknown>;
      return { kind: 'response', id: message.id, ok: true, result: await handler(parsed.data) };
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

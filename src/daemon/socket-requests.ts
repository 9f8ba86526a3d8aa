import type { ResponseMessage, RequestMessage } from '../ipc/protocol.js';
import { readRequest } from '../ipc/request-message.js';
import type { ServeHandlers, ServerConnection } from '../ipc/transport.js';
import type { DaemonEvents } from './events.js';

export type Route = (request: RequestMessage, connection: ServerConnection) => Promise<ResponseMessage>;

/**
 * What the daemon does with each message from its socket: check it, route it and reply. A malformed one
 * is answered with VALIDATION_FAILED when it has an id to answer to, and otherwise ends its connection;
 * either way it is logged, and nothing it does can reach the daemon's other connections or runs.
 */
export function answerSocketRequests(route: Route, events: DaemonEvents): ServeHandlers {
  const bug = (error: Error): void => void events.emit('scheduler:error', { error });
  const refused = (reason: string, connection: ServerConnection): void =>
    void events.emit('socket:refused', { connection: connection.id, reason });

  const reply = (connection: ServerConnection, response: ResponseMessage): void => {
    try {
      connection.send(response);
    } catch (error) {
      bug(error as Error);
      connection.send({
        kind: 'response',
        id: response.id,
        ok: false,
        error: {
          code: 'INTERNAL',
          message: `Internal error in the daemon: its reply could not be sent (${(error as Error).message}).`,
          hint: 'This is a bug in sched; the daemon log has the details.',
        },
      });
    }
  };

  return {
    message: (message, connection) => {
      const read = readRequest(message);
      if (!read.ok) {
        refused(read.reply ? read.reply.error.message : 'a request without an id to answer to', connection);
        if (read.reply) connection.send(read.reply);
        else connection.close();
        return;
      }
      const request = read.request;
      route(request, connection)
        .then((response) => reply(connection, response))
        .catch(bug);
    },
    refused,
    fault: bug,
  };
}

// The socket's floor (forked by creates.js): the daemon's own transport (dist/ipc/transport.js: framing,
// UTF-8 and depth checks, JSON in and out, corked replies) answering every request at once with the reply
// the daemon gave a real create, and doing nothing else. What a create costs a daemon above this process's
// cost is the daemon's own work: checking, storing, committing.
//   argv: socket path, the reply's result as JSON          child → { type: 'ready' } once listening
//   parent → { type: 'exit' }
import { serve } from '../../dist/ipc/transport.js';

const [socketPath, resultJson] = process.argv.slice(2);
const result = JSON.parse(resultJson);

const server = await serve(socketPath, {
  message(message, connection) {
    connection.send({ kind: 'response', id: message.id, ok: true, result });
  },
  refused(reason) {
    throw new Error(`the socket's floor refused a frame: ${reason}`);
  },
  fault(error) {
    throw error;
  },
});

process.on('message', async (message) => {
  if (message.type !== 'exit') return;
  await server.close();
  process.disconnect();
});
process.send({ type: 'ready' });

// A test composition of the daemon: the real one from dist/, except that it dies with SIGKILL once the
// change asked for by the socket method named in argv[2] is committed, before the reply can leave.
import { Daemon } from '../../dist/daemon/daemon.js';
import { logDaemonEvents } from '../../dist/daemon/event-log.js';
import { resolveLocations } from '../../dist/ipc/locations.js';

const method = process.argv[2];
const daemon = new Daemon(
  {
    locations: resolveLocations(process.env),
    version: '0.0.0-crash-test',
    shutdownGraceMs: 0,
    defaultTimezone: 'UTC',
    durability: 'full',
  },
  {
    route: (route) => async (request, connection) => {
      const response = await route(request, connection);
      if (request.method === method && response.ok) process.kill(process.pid, 'SIGKILL');
      return response;
    },
  },
);
logDaemonEvents(daemon.events, (line) => process.stdout.write(`${line}\n`));
process.once('SIGTERM', () => void daemon.stop().then(() => process.exit(0)));
await daemon.start();

// A test composition of the daemon: the real one from dist/, except that it dies with SIGKILL as it emits the
// event named in argv[2]. The daemon emits a change's event (job:created, job:updated, ...) once the store
// has committed the change and before the result goes back to whoever asked, the socket's client or the
// HTTPS API's, so the change is stored and no reply leaves. More arguments, optional: --api HOST:PORT
// --tls-cert FILE --tls-key FILE, as `sched daemon run` takes them.
import { parseArgs } from 'node:util';
import { Daemon } from '../../dist/daemon/daemon.js';
import { logDaemonEvents } from '../../dist/daemon/event-log.js';
import { resolveLocations } from '../../dist/ipc/locations.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { api: { type: 'string' }, 'tls-cert': { type: 'string' }, 'tls-key': { type: 'string' } },
});
const [fatalEvent] = positionals;
const daemon = new Daemon({
  locations: resolveLocations(process.env),
  version: '0.0.0-crash-test',
  shutdownGraceMs: 0,
  defaultTimezone: 'UTC',
  durability: 'full',
  api: {
    listen: values.api ?? null,
    tlsCertFile: values['tls-cert'] ?? null,
    tlsKeyFile: values['tls-key'] ?? null,
    allowPlainHttp: false,
    oidc: { jwksUrl: null, issuer: null, audience: null, rolesClaim: 'roles', ownerClaim: 'sub' },
  },
});
daemon.events.on(fatalEvent, () => process.kill(process.pid, 'SIGKILL'));
logDaemonEvents(daemon.events, (line) => process.stdout.write(`${line}\n`));
process.once('SIGTERM', () => void daemon.stop().then(() => process.exit(0)));
await daemon.start();

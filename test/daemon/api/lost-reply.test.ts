import { afterEach, describe, expect, it } from 'vitest';
import {
  apiAddress,
  apiClient,
  apiDaemonArgs,
  createToken,
  makeCertificate,
  startApiDaemon,
} from '../../support/api-harness.js';
import { sched, useDaemons } from '../../support/sched-harness.js';

type Certificate = ReturnType<typeof makeCertificate>;

// A client whose POST got no answer cannot tell whether the daemon stored the job before it died; repeating
// the POST with its Idempotency-Key must be safe either way: exactly one job in the end.
describe('an idempotent POST repeated after the daemon died before replying', () => {
  const daemons = useDaemons(afterEach);

  const postJob = (api: ReturnType<typeof apiClient>, token: string) =>
    api.request('POST', '/v1/jobs', {
      token,
      headers: { 'idempotency-key': 'deploy-7' },
      body: { input: { name: 'lost-reply', every: '1h', argv: ['true'] } },
    });

  const storedJobs = async (home: string) =>
    ((await sched(home, ['ls', '--json'])).json.items as { id: string; name: string }[]).map(
      ({ id, name }) => ({ id, name }),
    );

  async function restart(home: string, certificate: Certificate) {
    const daemon = await daemons.start(home, apiDaemonArgs(certificate));
    return apiClient(`https://${await apiAddress(daemon)}`, certificate.ca);
  }

  it('Given the daemon killed once it committed the job and before it replied, when the POST is repeated on the restarted daemon, then the answer is the stored job and it is the only one', async () => {
    const home = daemons.home();
    const certificate = makeCertificate(home);
    const doomed = await daemons.startComposed(home, 'crash-on-event-daemon.mjs', [
      'job:created',
      ...apiDaemonArgs(certificate),
    ]);
    const token = await createToken(home, ['--name', 'deployer', '--role', 'operator']);
    const first = apiClient(`https://${await apiAddress(doomed)}`, certificate.ca);

    await expect(postJob(first, token)).rejects.toThrow();
    await doomed.exited;
    await first.close();
    expect(doomed.process.signalCode).toBe('SIGKILL');

    const api = await restart(home, certificate);
    const committed = await storedJobs(home);
    expect(committed).toEqual([{ id: expect.any(String), name: 'lost-reply' }]);
    const repeated = await postJob(api, token);
    await api.close();

    expect(repeated.status).toBe(201);
    expect(repeated.body.id).toBe(committed[0]!.id);
    expect(await storedJobs(home)).toEqual(committed);
  });

  it('Given the daemon stopped before it could read the POST and then killed, when the POST is repeated on the restarted daemon, then it creates the job and it is the only one', async () => {
    const { home, daemon, certificate, api: first } = await startApiDaemon(daemons);
    const token = await createToken(home, ['--name', 'deployer', '--role', 'operator']);
    // The connection is open (TLS done, kept alive), so the POST goes out on it while the daemon is stopped.
    expect((await first.request('GET', '/v1/health', { token })).status).toBe(200);

    process.kill(daemon.pid, 'SIGSTOP');
    // Caught at once: it fails while the daemon is being killed, before the test comes to await it.
    const unanswered = postJob(first, token).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await daemon.stop('SIGKILL');
    expect(await unanswered).toBeInstanceOf(Error);
    await first.close();

    const api = await restart(home, certificate);
    expect(await storedJobs(home)).toEqual([]);
    const repeated = await postJob(api, token);
    await api.close();

    expect(repeated.status).toBe(201);
    expect(await storedJobs(home)).toEqual([{ id: repeated.body.id, name: 'lost-reply' }]);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonClient } from '../../src/client/daemon-client.js';
import { exchange } from '../support/raw-socket.js';
import { isAlive, sched, useDaemons, waitFor, type RunningDaemon } from '../support/sched-harness.js';

const frame = (text: string): Buffer => Buffer.from(`${text}\f`, 'utf8');
const request = (fields: string): string => `{"type":"sched","data":{"kind":"request",${fields}}}`;

/** A frame with a plain id that asks for `daemon.status` and carries `params` as given (raw JSON text). */
const statusRequest = (params: string): string =>
  request(`"id":9,"method":"daemon.status","params":${params}`);

/** Frames the daemon cannot read at all: it closes the connection without a reply. */
const unreadable: Array<{ name: string; bytes: Buffer; endAfter?: boolean }> = [
  { name: 'an empty object', bytes: frame('{}') },
  { name: 'a numeric type', bytes: frame('{"type":1,"data":{}}') },
  { name: 'an array', bytes: frame('[{}]') },
  { name: 'the type "constructor"', bytes: frame('{"type":"constructor"}') },
  { name: 'the type "toString"', bytes: frame('{"type":"toString"}') },
  {
    name: 'a request id nested 4,000 deep',
    bytes: frame(request(`"id":${'['.repeat(4000)}${']'.repeat(4000)},"method":"daemon.status","params":{}`)),
  },
  {
    name: 'an id with its own toString, followed by closing the connection',
    bytes: frame('{"type":"x","data":{"id":{"toString":0}}}'),
    endAfter: true,
  },
  {
    name: 'params nested 200 deep',
    bytes: frame(statusRequest(`{"x":${'['.repeat(200)}${']'.repeat(200)}}`)),
  },
  {
    name: 'a frame of 3 MiB',
    bytes: frame(statusRequest(`{"pad":"${'x'.repeat(3 * 1024 * 1024)}"}`)),
  },
  { name: '3 MiB without a delimiter', bytes: Buffer.from(`{"pad":"${'x'.repeat(3 * 1024 * 1024)}`) },
  {
    name: 'invalid UTF-8',
    bytes: Buffer.concat([
      Buffer.from(request('"id":9,"method":"job.get","params":{"ref":"').slice(0, -2)),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}}}\f'),
    ]),
  },
  { name: 'text that is not JSON', bytes: frame('{"type":"sched",') },
  { name: 'a request without an id', bytes: frame(request('"method":"daemon.status","params":{}')) },
  {
    name: 'a request whose id is an object',
    bytes: frame(request('"id":{"toString":0},"method":"daemon.status","params":{}')),
  },
  {
    name: 'a truncated frame followed by closing the connection',
    bytes: Buffer.from(request('"id":9,"method":"job.cancel","params":{"ref":"keep"}').slice(0, 40)),
    endAfter: true,
  },
];

/** Requests the daemon can read but not accept: answered with VALIDATION_FAILED under the id they carried. */
const refused: Array<{ name: string; bytes: Buffer; id: number | string }> = [
  {
    name: 'a method with its own toString',
    bytes: frame(request('"id":3,"method":{"toString":1},"params":{}')),
    id: 3,
  },
  {
    name: 'a string id',
    bytes: frame(request('"id":"abc","method":"daemon.status","params":{}')),
    id: 'abc',
  },
  {
    name: 'a message that is not a request',
    bytes: frame('{"type":"sched","data":{"kind":"event","id":4}}'),
    id: 4,
  },
];

describe('the daemon socket, given malformed frames', () => {
  const { home, start } = useDaemons(afterEach);
  const clients: DaemonClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  /** A daemon with one job, and a client connected before any malformed frame arrives. */
  async function daemonWithAJob(
    daemons: Pick<ReturnType<typeof useDaemons>, 'home' | 'start'> = { home, start },
    openClients: DaemonClient[] = clients,
  ): Promise<{
    daemon: RunningDaemon;
    socketPath: string;
    client: DaemonClient;
  }> {
    const dir = daemons.home();
    const daemon = await daemons.start(dir);
    const socketPath = path.join(dir, 'sched.sock');
    const client = await DaemonClient.connect(socketPath);
    openClients.push(client);
    await client.call('job.add', { input: { name: 'keep', cron: '0 3 1 1 *', argv: ['true'] } });
    return { daemon, socketPath, client };
  }

  const stored = async (client: DaemonClient) => ({
    jobs: await client.call('job.list', {}),
    audit: await client.call('audit.list', {}),
  });

  /** The daemon runs, its earlier connection and a new one are answered, and nothing stored changed. */
  async function expectUnharmed(
    daemon: RunningDaemon,
    socketPath: string,
    client: DaemonClient,
    before: Awaited<ReturnType<typeof stored>>,
  ): Promise<void> {
    expect(isAlive(daemon.pid)).toBe(true);
    expect(await stored(client)).toEqual(before);
    const fresh = await DaemonClient.connect(socketPath);
    clients.push(fresh);
    expect((await fresh.call('daemon.status', {})).pid).toBe(daemon.pid);
  }

  // One daemon takes every malformed frame in turn (a daemon start per case would be most of this file's
  // time): each case compares what is stored with what was stored just before it, and a frame that left the
  // daemon harmed fails its own case or the next.
  describe('one after another on one daemon', () => {
    const shared = useDaemons(afterAll);
    const sharedClients: DaemonClient[] = [];
    let daemon: RunningDaemon;
    let socketPath: string;
    let client: DaemonClient;
    beforeAll(async () => {
      ({ daemon, socketPath, client } = await daemonWithAJob(shared, sharedClients));
    });
    afterAll(() => {
      for (const open of sharedClients.splice(0)) open.close();
    });
    const refusalsLogged = () => daemon.output().split('"socket:refused"').length - 1;

    it.each(unreadable)(
      'when it gets $name, then it closes that connection and goes on',
      async (malformed) => {
        const before = await stored(client);
        const refusals = refusalsLogged();

        const result = await exchange(socketPath, malformed.bytes, { endAfter: malformed.endAfter });

        expect(result).toEqual({ replies: [], closed: true });
        await expectUnharmed(daemon, socketPath, client, before);
        await waitFor(async () => refusalsLogged() > refusals);
      },
    );

    it.each(refused)(
      'when it gets $name, then it answers VALIDATION_FAILED and goes on',
      async (malformed) => {
        const before = await stored(client);

        const result = await exchange(socketPath, malformed.bytes, { expectReplies: 1 });

        expect(result.replies).toEqual([
          {
            type: 'sched',
            data: {
              kind: 'response',
              id: malformed.id,
              ok: false,
              error: expect.objectContaining({ code: 'VALIDATION_FAILED', message: expect.any(String) }),
            },
          },
        ]);
        expect(JSON.stringify(result.replies)).not.toContain('toString');
        await expectUnharmed(daemon, socketPath, client, before);
      },
    );
  });

  it('when a run is in progress and every malformed frame arrives, then the run still ends as it should', async () => {
    const { daemon, socketPath, client } = await daemonWithAJob();
    await client.call('job.add', {
      input: { name: 'slow', every: '1h', argv: ['sh', '-c', 'sleep 5; echo done'] },
    });
    const triggered = await client.call('job.trigger', { ref: 'slow' });
    await waitFor(async () => (await client.call('run.get', { id: triggered.id })).state === 'running');

    for (const malformed of [...unreadable, ...refused])
      await exchange(socketPath, malformed.bytes, { expectReplies: 1 });

    const run = await waitFor(async () => {
      const current = await client.call('run.get', { id: triggered.id });
      return current.state === 'running' ? undefined : current;
    });
    expect(run).toMatchObject({ state: 'succeeded', stdoutTail: 'done\n' });
    expect(isAlive(daemon.pid)).toBe(true);
  });

  it('when sched add is given a payload nested 100,000 deep, then it is refused as invalid, not as a bug, and nothing is stored', async () => {
    const dir = home();
    await start(dir);
    const payloadFile = path.join(dir, 'deep.json');
    fs.writeFileSync(payloadFile, `${'['.repeat(100_000)}${']'.repeat(100_000)}`);

    const added = await sched(dir, [
      'add',
      'deep',
      '--every',
      '1h',
      '--payload',
      `@${payloadFile}`,
      '--',
      'true',
    ]);

    expect(added.code).toBe(2);
    expect(added.stderr).toContain('The payload nests objects and arrays more than 100 levels deep.');
    expect(added.stderr).not.toMatch(/bug|\n\s+at /);
    const listed = await sched(dir, ['ls', '--json']);
    expect(listed.json.items).toEqual([]);
  });

  it('when a client would send a request larger than the daemon reads, then it is refused before it leaves and the connection stays usable', async () => {
    const { daemon, client } = await daemonWithAJob();
    const description = 'x'.repeat(3 * 1024 * 1024);

    const refusal = client.call('job.add', {
      input: { name: 'big', every: '1h', argv: ['true'], description },
    });

    await expect(refusal).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect((await client.call('daemon.status', {})).pid).toBe(daemon.pid);
    expect((await client.call('job.list', {})).items.map((job) => job.name)).toEqual(['keep']);
  });
});

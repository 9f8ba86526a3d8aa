import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialsOf, peerCredentialsSupport } from '../../src/ipc/peer-credentials.js';
import { makeHome, removeHome } from '../support/sched-harness.js';

describe('peer credentials from the kernel', () => {
  const homes: string[] = [];
  afterEach(() => homes.splice(0).forEach(removeHome));

  it('is supported on this platform (Linux and the BSDs; CI runs Linux)', () => {
    expect(peerCredentialsSupport()).toHaveProperty('addon');
  });

  it('given a connection accepted on a Unix socket, names the process that connected: its uid, gid and pid', async () => {
    const home = makeHome();
    homes.push(home);
    const socketPath = path.join(home, 'peer.sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
    const client = net.connect(socketPath);

    const credentials = credentialsOf(await accepted);

    expect(credentials).toEqual({ uid: process.getuid!(), gid: process.getgid!(), pid: process.pid });
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('given a socket that is not a Unix socket’s accepted end, says nothing rather than guessing', () => {
    expect(credentialsOf(new net.Socket())).toBeNull();
  });

  it('reads the user database: this process’s user and its groups', () => {
    const support = peerCredentialsSupport();
    if (!('addon' in support)) throw new Error(support.reason);
    const me = os.userInfo();

    expect(support.addon.userById(me.uid)).toMatchObject({ name: me.username, uid: me.uid, gid: me.gid });
    expect(support.addon.userById(4_000_000_000)).toBeNull();
    expect(support.addon.groupNamesOf(me.username, me.gid).length).toBeGreaterThanOrEqual(1);
    expect(support.addon.groupIdOf('no-such-group-sched')).toBeNull();
  });
});

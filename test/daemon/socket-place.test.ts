import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSocketPath, prepareSocketFolder } from '../../src/daemon/socket-place.js';
import { makeHome, removeHome, useDaemons } from '../support/sched-harness.js';

const NOBODY = 65534;
const isRoot = process.getuid!() === 0;

describe('where the daemon puts its socket', () => {
  const homes: string[] = [];
  const { start } = useDaemons(afterEach);
  const dir = (): string => {
    const home = makeHome();
    homes.push(home);
    return home;
  };
  afterEach(() => homes.splice(0).forEach(removeHome));

  it('given a symlink at the socket path, the daemon refuses to start, says so, and leaves the link and its target alone', async () => {
    const home = dir();
    const target = path.join(home, 'precious');
    fs.writeFileSync(target, 'keep me');
    fs.symlinkSync(target, path.join(home, 'sched.sock'));

    await expect(start(home)).rejects.toThrow(
      /Refusing the socket path .*sched\.sock: it is a symbolic link/,
    );

    expect(fs.lstatSync(path.join(home, 'sched.sock')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe('keep me');
  });

  it('given a file of another user at the socket path, it is refused naming its owner', () => {
    const home = dir();
    const socketPath = path.join(home, 'sched.sock');
    fs.writeFileSync(socketPath, '');
    // Only root can give a file away; another user's test still sees a file that is not a socket refused.
    if (isRoot) fs.chownSync(socketPath, NOBODY, NOBODY);

    expect(() => checkSocketPath(socketPath)).toThrow(
      isRoot ? `it belongs to uid ${NOBODY}` : 'it is not a socket',
    );
    expect(fs.existsSync(socketPath)).toBe(true);
  });

  it('given a socket the daemon’s user left behind, it is accepted (the daemon binds it again)', async () => {
    const home = dir();
    const socketPath = path.join(home, 'stale.sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    expect(() => checkSocketPath(socketPath)).not.toThrow();
    await new Promise((resolve) => server.close(resolve));
  });

  it('given no folder for the socket, it is made with passage only for the classes the socket mode admits', () => {
    const home = dir();
    prepareSocketFolder(path.join(home, 'private', 'sched.sock'), 0o600, null);
    prepareSocketFolder(path.join(home, 'group', 'sched.sock'), 0o660, null);
    prepareSocketFolder(path.join(home, 'everyone', 'sched.sock'), 0o666, null);

    expect(fs.statSync(path.join(home, 'private')).mode & 0o7777).toBe(0o700);
    expect(fs.statSync(path.join(home, 'group')).mode & 0o7777).toBe(0o710);
    expect(fs.statSync(path.join(home, 'everyone')).mode & 0o7777).toBe(0o711);
  });

  it('given a socket folder others may write in and not sticky, it is refused', () => {
    const home = dir();
    const shared = path.join(home, 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o777);

    expect(() => prepareSocketFolder(path.join(shared, 'sched.sock'), 0o600, null)).toThrow(
      /others may write in it \(mode 0777\)/,
    );
  });

  it('given socket_mode 0660 for its own user, the daemon’s socket gets exactly that mode', async () => {
    const home = dir();
    fs.writeFileSync(path.join(home, 'config.toml'), 'socket_mode = "0660"\n');

    await start(home);

    expect(fs.statSync(path.join(home, 'sched.sock')).mode & 0o777).toBe(0o660);
  });
});

import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import ClusterKeysUse from '../../src/commands/cluster/keys/use.js';
import { freePeerPort, newClusterKeyFile } from '../support/peer-daemons.js';
import { sched, useDaemons, type CliResult } from '../support/sched-harness.js';
import { FakeDaemonClient, runCommand } from './command-harness.js';

/** The fingerprint the commands promise: the first 8 hex digits of the SHA-256 of the key's bytes. */
const fingerprint = (key: string): string =>
  createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex').slice(0, 8);

const keysIn = (file: string): string[] => fs.readFileSync(file, 'utf8').trim().split('\n');

describe('sched cluster keys', () => {
  const harness = useDaemons(afterEach);
  /** Every command's stdout and stderr, to check that no key was ever printed. */
  const printed: string[] = [];
  afterEach(() => void printed.splice(0));

  async function keys(dir: string, args: string[], input?: string): Promise<CliResult> {
    const result = await sched(dir, ['cluster', 'keys', ...args], { input });
    printed.push(result.stdout, result.stderr);
    return result;
  }

  /** A peer daemon that is its own cluster of one, logging everything (debug) to the output we keep. */
  async function lonePeer() {
    const dir = harness.home();
    const keyFile = path.join(dir, 'cluster.key');
    const first = await newClusterKeyFile(dir, keyFile);
    const id = `127.0.0.1:${await freePeerPort()}`;
    const daemon = await harness.start(dir, [
      ...['--peers', id, '--bind', id, '--cluster-key-file', keyFile, '--log-level', 'debug'],
    ]);
    /** A new key in a file of its own, as `sched cluster keygen > FILE` makes it. */
    const newKey = async (name: string) => {
      const file = path.join(dir, name);
      return { file, key: await newClusterKeyFile(dir, file) };
    };
    return { dir, keyFile, first, daemon, newKey };
  }

  it('Given a peer daemon, when a key is installed (from a file, standard input, an argument), used and the old ones removed, then each step shows fingerprints, the key file follows, and no key reaches the output, the log or the audit', async () => {
    const { dir, keyFile, first, daemon, newKey } = await lonePeer();
    const second = await newKey('second.key');
    const third = await newKey('third.key');

    const listed = await keys(dir, ['list', '--json']);
    const shown = await keys(dir, ['list']);
    const installed = await keys(dir, ['install', '--from-file', second.file, '--json']);
    const again = await keys(dir, ['install', '--from-file', '-', '--json'], `${second.key}\n`);
    const byArgument = await keys(dir, ['install', third.key, '--json']);
    const used = await keys(dir, ['use', '--from-file', second.file]);
    const removedFirst = await keys(dir, ['remove', first, '--json']);
    const removedThird = await keys(dir, ['remove', '--from-file', '-', '--json'], third.key);

    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json).toEqual({
      keyFile,
      keys: [{ fingerprint: fingerprint(first), primary: true }],
      count: 1,
      max: 16,
    });
    expect(shown.stdout).toMatch(new RegExp(`^${fingerprint(first)}\\s+yes$`, 'm'));
    expect(shown.stdout).toMatch(/1 key of at most 16/);
    expect(installed.json).toMatchObject({ action: 'install', fingerprint: fingerprint(second.key) });
    expect(installed.json.changed).toBe(true);
    expect(installed.json.keys).toEqual([
      { fingerprint: fingerprint(first), primary: true },
      { fingerprint: fingerprint(second.key), primary: false },
    ]);
    expect(again.json.changed).toBe(false);
    expect(byArgument.json.count).toBe(3);
    expect(used.code, used.stderr).toBe(0);
    expect(used.stdout).toMatch(new RegExp(`^${fingerprint(second.key)}\\s+yes$`, 'm'));
    expect(removedFirst.json.keys.map((key: { fingerprint: string }) => key.fingerprint)).toEqual([
      fingerprint(second.key),
      fingerprint(third.key),
    ]);
    expect(removedThird.json).toMatchObject({ count: 1, changed: true });
    expect(keysIn(keyFile)).toEqual([second.key]);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    const audit = await sched(dir, ['audit', '--json', '--limit', '50']);
    const changes = audit.json.items.filter((entry: { action: string }) =>
      entry.action.startsWith('cluster.keys.'),
    );
    expect(changes.map((entry: { action: string }) => entry.action).sort()).toEqual([
      'cluster.keys.install',
      'cluster.keys.install',
      'cluster.keys.remove',
      'cluster.keys.remove',
      'cluster.keys.use',
    ]);
    expect(daemon.output()).toContain('"event":"peer:keyring-changed"');
    for (const key of [first, second.key, third.key]) {
      for (const text of printed) expect(text).not.toContain(key);
      expect(daemon.output()).not.toContain(key);
      expect(audit.stdout).not.toContain(key);
    }
  });

  it('Given changes the keyring rules refuse, then each exits with its code, one sentence and a hint, and the ring and key file stay as they were', async () => {
    const { dir, keyFile, first, newKey } = await lonePeer();
    const stranger = await newKey('stranger.key');
    const pair = path.join(dir, 'pair.key');
    fs.writeFileSync(pair, `${first}\n${stranger.key}\n`, { mode: 0o600 });
    const before = fs.readFileSync(keyFile, 'utf8');

    const refusals: [string[], number, RegExp][] = [
      [['remove', '--from-file', keyFile], 4, /primary key cannot be removed/],
      [['use', '--from-file', stranger.file], 2, /not installed/],
      [['install', 'bm90IGEga2V5'], 2, /not a cluster key/],
      [['install', first, '--from-file', stranger.file], 2, /either as an argument or with --from-file/],
      [['install'], 2, /No key given/],
      [['install', '--from-file', pair], 2, /holds 2 lines/],
      [['install', '--from-file', path.join(dir, 'missing.key')], 2, /Cannot read the key/],
      [['use', '--remote', 'https://example.com', '--from-file', stranger.file], 2, /takes no --remote/],
    ];
    for (const [args, code, message] of refusals) {
      const refused = await keys(dir, [...args, '--json']);
      expect({ args, code: refused.code }).toEqual({ args, code });
      expect(refused.json.error.message).toMatch(message);
      expect(refused.json.error.hint).toBeTruthy();
      expect(fs.readFileSync(keyFile, 'utf8')).toBe(before);
    }
    const human = await keys(dir, ['remove', '--from-file', keyFile]);
    expect(human.stderr).toMatch(/Hint: /);
    expect(human.stderr).not.toMatch(/\n\s+at /);

    for (let count = 2; count <= 16; count += 1)
      expect((await keys(dir, ['install', randomBytes(32).toString('base64')])).code).toBe(0);
    const full = fs.readFileSync(keyFile, 'utf8');
    const seventeenth = await keys(dir, ['install', '--from-file', stranger.file, '--json']);
    expect(seventeenth.code).toBe(2);
    expect(seventeenth.json.error.message).toMatch(/at most 16 keys/);
    expect(fs.readFileSync(keyFile, 'utf8')).toBe(full);
    expect((await keys(dir, ['list', '--json'])).json.count).toBe(16);
    for (const text of printed) expect(text).not.toContain(stranger.key);
  }, 120_000);

  it('Given a daemon not in peer mode, then listing or changing keys is refused with exit 4, saying keys are for peer mode', async () => {
    const dir = harness.home();
    await harness.start(dir);
    const file = path.join(dir, 'some.key');
    await newClusterKeyFile(dir, file);

    for (const args of [['list'], ['install', '--from-file', file]]) {
      const refused = await keys(dir, [...args, '--json']);
      expect(refused.code).toBe(4);
      expect(refused.json.error.code).toBe('INVALID_STATE');
      expect(refused.json.error.message).toMatch(/not in peer mode/);
      expect(refused.json.error.hint).toMatch(/--peers/);
    }
  });

  it('Given a key in a file among comments and blank lines, when run in process, then the one key is what it sends', async () => {
    const dir = harness.home();
    const key = Buffer.alloc(32, 7).toString('base64');
    const file = path.join(dir, 'commented.key');
    fs.writeFileSync(file, `# the next primary\n\n  ${key}  \n`);
    const client = new FakeDaemonClient({ 'cluster.keys.use': { changed: true } });

    await runCommand(ClusterKeysUse, ['--from-file', file, '--json'], client);

    expect(client.calls).toEqual([{ method: 'cluster.keys.use', params: { key } }]);
  });
});

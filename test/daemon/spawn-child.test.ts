import { chmodSync, existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as nativeAddon from 'sched-process-spawn';
import { afterAll, describe, expect, it } from 'vitest';
import {
  nativeSpawnAvailable,
  spawnNatively,
  spawnWithNode,
  type SpawnRequest,
  type SpawnedChild,
} from '../../src/daemon/executor/spawn-child.js';

const PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
const folder = realpathSync(mkdtempSync(join(tmpdir(), 'sched-spawn-child-')));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  status: string;
  pid: number | undefined;
}

type Spawner = (request: SpawnRequest) => SpawnedChild;

function request(fields: Partial<SpawnRequest>): SpawnRequest {
  return {
    file: '/bin/sh',
    args: [],
    cwd: null,
    env: { PATH },
    stdinPipe: false,
    statusPipe: false,
    ...fields,
  };
}

/** Runs it to its close, or gives the errno name it could not start with (thrown, or reported as 'error'). */
function runToClose(
  spawner: Spawner,
  fields: Partial<SpawnRequest>,
  stdin?: string,
): Promise<Ended | string> {
  return new Promise((resolve) => {
    let child: SpawnedChild;
    try {
      child = spawner(request({ ...fields, stdinPipe: stdin !== undefined }));
    } catch (error) {
      return resolve((error as NodeJS.ErrnoException).code ?? String(error));
    }
    const text = { stdout: '', stderr: '', status: '' };
    let exit: Pick<Ended, 'code' | 'signal'> = { code: null, signal: null };
    child.stdout.on('data', (chunk: Buffer) => (text.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text.stderr += chunk.toString()));
    child.status?.on('data', (chunk: Buffer) => (text.status += chunk.toString()));
    child.onError((error) => resolve((error as NodeJS.ErrnoException).code ?? String(error)));
    if (stdin !== undefined) child.stdin?.end(stdin);
    child.onExit((code, signal) => (exit = { code, signal }));
    child.onClose(() => resolve({ ...exit, ...text, pid: child.pid }));
  });
}

async function ended(spawner: Spawner, fields: Partial<SpawnRequest>, stdin?: string): Promise<Ended> {
  const result = await runToClose(spawner, fields, stdin);
  if (typeof result === 'string') throw new Error(`expected it to start, it failed with ${result}`);
  return result;
}

const shell = (script: string): Partial<SpawnRequest> => ({ file: '/bin/sh', args: ['-c', script] });

const spawners: [string, Spawner][] = [
  ['posix_spawn (the addon)', (fields) => spawnNatively(nativeAddon, fields)],
  ["Node's spawn (where the addon is missing)", spawnWithNode],
];

it('uses the addon on this machine (Linux with pidfds), so the daemon does not fork', () => {
  expect(nativeAddon.supported).toBe(true);
  expect(nativeSpawnAvailable()).toBe(true);
});

describe.each(spawners)('a child started with %s', (_name, spawner) => {
  it('gives its exit code and both streams', async () => {
    const result = await ended(spawner, shell('echo out; echo err >&2; exit 3'));
    expect(result).toMatchObject({ code: 3, signal: null, stdout: 'out\n', stderr: 'err\n' });
  });

  it('gives the name of the signal that ended it', async () => {
    expect(await ended(spawner, shell('kill -TERM $$'))).toMatchObject({ code: null, signal: 'SIGTERM' });
  });

  it('reads its stdin from the payload, or from /dev/null without one', async () => {
    expect((await ended(spawner, { file: 'cat' }, 'the payload')).stdout).toBe('the payload');
    expect(await ended(spawner, shell('cat; echo end'))).toMatchObject({ code: 0, stdout: 'end\n' });
  });

  it('gets exactly the environment given, and finds a bare name on that PATH, not this process’s', async () => {
    const bin = mkdtempSync(join(folder, 'bin-'));
    writeFileSync(join(bin, 'sched-hello'), '#!/bin/sh\necho "hello $GREETING from $(pwd)"\n');
    chmodSync(join(bin, 'sched-hello'), 0o755);
    const env = { PATH: `/nonexistent:${bin}:/usr/bin:/bin`, GREETING: 'there' };
    const result = await ended(spawner, { file: 'sched-hello', env, cwd: folder });
    expect(result).toMatchObject({ code: 0, stdout: `hello there from ${folder}\n` });
    expect(await runToClose(spawner, { file: 'sched-hello', env: { PATH } })).toBe('ENOENT');
  });

  it('resolves a path with a slash in its own folder, and says ENOENT and EACCES as Node does', async () => {
    writeFileSync(join(folder, 'local.sh'), '#!/bin/sh\necho local\n');
    chmodSync(join(folder, 'local.sh'), 0o755);
    writeFileSync(join(folder, 'not-executable.sh'), '#!/bin/sh\necho never\n');
    chmodSync(join(folder, 'not-executable.sh'), 0o644);
    expect((await ended(spawner, { file: './local.sh', cwd: folder })).stdout).toBe('local\n');
    expect(await runToClose(spawner, { file: './missing.sh', cwd: folder })).toBe('ENOENT');
    expect(await runToClose(spawner, { file: join(folder, 'not-executable.sh') })).toBe('EACCES');
  });

  it('runs a script without a #! line through /bin/sh, with its arguments, as cron and execvp do', async () => {
    const bin = mkdtempSync(join(folder, 'plain-'));
    writeFileSync(join(bin, 'plain-script'), 'echo "ran with $# arguments: $1 $2"\n');
    chmodSync(join(bin, 'plain-script'), 0o755);
    const byPath = await ended(spawner, { file: join(bin, 'plain-script'), args: ['a', 'b c'] });
    expect(byPath).toMatchObject({ code: 0, stdout: 'ran with 2 arguments: a b c\n' });
    const onPath = await ended(spawner, {
      file: 'plain-script',
      args: ['x'],
      env: { PATH: `${bin}:${PATH}` },
    });
    expect(onPath).toMatchObject({ code: 0, stdout: 'ran with 1 arguments: x \n' });
  });

  it('leads a session of its own, with no signal blocked and SIGPIPE at its default', async () => {
    // `read` is the shell's own: /proc/self is the shell, the child itself.
    const result = await ended(
      spawner,
      shell('read -r stat < /proc/self/stat; echo $stat; grep -E "^Sig(Blk|Ign)" /proc/self/status'),
    );
    const [pid, , , , processGroup, session] = result.stdout.split('\n')[0]!.split(' ');
    expect(Number(pid)).toBe(result.pid);
    expect(processGroup).toBe(pid);
    expect(session).toBe(pid);
    const masks = Object.fromEntries(
      [...result.stdout.matchAll(/^(SigBlk|SigIgn):\s*([0-9a-f]+)$/gm)].map(([, name, mask]) => [
        name,
        BigInt(`0x${mask}`),
      ]),
    );
    expect(masks.SigBlk).toBe(0n);
    const bit = (signal: number): bigint => 1n << BigInt(signal - 1);
    for (const signal of [1, 2, 13, 15]) expect(masks.SigIgn! & bit(signal)).toBe(0n); // HUP INT PIPE TERM
  });

  it('hands fd 3 to the child as a pipe when asked', async () => {
    const result = await ended(spawner, { ...shell('echo "exec 2" >&3; exit 127'), statusPipe: true });
    expect(result).toMatchObject({ code: 127, status: 'exec 2\n' });
  });

  it('reaps every one of 200 children started at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, index) => ended(spawner, shell(`exit ${index % 7}`))),
    );
    expect(results.map((result) => result.code)).toEqual(
      Array.from({ length: 200 }, (_, index) => index % 7),
    );
    // Reaped, not zombies: no /proc entry is left for any of them.
    expect(results.filter((result) => existsSync(`/proc/${result.pid}`))).toEqual([]);
  });
});

describe('a child started with posix_spawn', () => {
  it('inherits no descriptor but its three streams (and fd 3 when asked), whatever this process holds open', async () => {
    const listing = (await ended(spawner(), shell('ls /proc/$$/fd'))).stdout.split('\n').filter(Boolean);
    expect(listing.sort()).toEqual(['0', '1', '2']);
    const withStatus = await ended(spawner(), { ...shell('ls /proc/$$/fd'), statusPipe: true });
    expect(withStatus.stdout.split('\n').filter(Boolean).sort()).toEqual(['0', '1', '2', '3']);
  });

  it('refuses an argument with a NUL in it rather than cut it short', async () => {
    expect(await runToClose(spawner(), { file: '/bin/echo', args: ['a\0b'] })).toMatch(
      /ERR_INVALID_ARG_TYPE|TypeError/,
    );
  });
});

function spawner(): Spawner {
  return (fields) => spawnNatively(nativeAddon, fields);
}

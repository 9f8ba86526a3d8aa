import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, startApiDaemon } from '../support/api-harness.js';
import { childEnv } from '../support/child-env.js';
import {
  sched,
  schedBin,
  sleep,
  useDaemons,
  waitFor,
  type CliResult,
  type RunningDaemon,
} from '../support/sched-harness.js';

/**
 * What differs between two runs of one command a moment apart, or between two jobs made alike: relative
 * times, ids, and the names given to the twins.
 */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const normal = (text: string, twins: [string, string] | null = null) =>
  (twins ? text.replaceAll(twins[0], twins[1]) : text)
    .replace(UUID, '<id>')
    .replace(/\(in [^)]*\)/g, '(in …)')
    .replace(/\b(\d+[smhd] ?)+ ago\b/g, '… ago')
    .replace(/"(now|timestamp)": [^,\n]+/g, '"$1": …');

// One daemon serves every test here (each uses jobs of its own names): starting one per test would spend
// most of the file's time in start-ups.
describe('the CLI against a remote daemon (--remote, over HTTPS)', () => {
  const daemons = useDaemons(afterAll);
  let home: string;
  let daemon: RunningDaemon;
  let url: string;
  let certFile: string;
  /** SCHED_HOME of the remote commands: an empty folder, so a command that went to a socket would fail. */
  let elsewhere: string;
  let operator: string;
  let viewer: string;
  /** Everything the remote commands printed, and every token they used: none may be in the other. */
  const printed: string[] = [];
  const tokens: string[] = [];

  beforeAll(async () => {
    ({ home, daemon, url, certFile } = await startApiDaemon(daemons));
    elsewhere = daemons.home();
    operator = await createToken(home, ['--name', 'laptop', '--role', 'operator', '--owner', 'root']);
    viewer = await createToken(home, ['--name', 'wallboard', '--role', 'viewer']);
    tokens.push(operator, viewer);
  }, 60_000);

  const remote = async (args: string[], env: Record<string, string> = {}): Promise<CliResult> => {
    const result = await sched(elsewhere, args, {
      env: { SCHED_REMOTE: url, SCHED_CA_FILE: certFile, SCHED_TOKEN: operator, TZ: 'UTC', ...env },
    });
    printed.push(result.stdout, result.stderr);
    return result;
  };
  const local = (args: string[]) => sched(home, args, { env: { TZ: 'UTC' } });

  /** The same command here and remotely: the same exit code and, but for relative times, the same output. */
  const expectSameAsLocal = async (args: string[]) => {
    const [here, there] = [await local(args), await remote(args)];
    expect({ args, code: there.code }).toEqual({ args, code: here.code });
    expect(normal(there.stdout)).toBe(normal(here.stdout));
    expect(normal(there.stderr)).toBe(normal(here.stderr));
    return there;
  };

  const finished = (runId: string) =>
    waitFor(async () => {
      const run = (await local(['logs', runId, '--json'])).json;
      return ['succeeded', 'failed'].includes(run?.state) ? run : null;
    });

  it('Given a job added with --remote, when ls, show, history and logs run remotely, then they print what they print locally, as text and as --json', async () => {
    const added = await remote([
      'add',
      'remote-a',
      '--every',
      '1h',
      '--label',
      'team=web',
      '--',
      'sh',
      '-c',
      'echo out; echo err >&2',
    ]);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^Added job remote-a \(id [0-9a-f-]+\), next run /);
    expect((await local(['show', 'remote-a', '--json'])).json.job).toMatchObject({
      owner: 'root',
      labels: { team: 'web' },
    });

    const triggered = await remote(['trigger', 'remote-a', '--json']);
    expect(triggered.code).toBe(0);
    const run = await finished(triggered.json.id);
    expect(run).toMatchObject({ state: 'succeeded', stdoutTail: 'out\n', stderrTail: 'err\n' });

    for (const args of [
      ['ls'],
      ['ls', '--json'],
      ['show', 'remote-a'],
      ['show', 'remote-a', '--json'],
      ['history', 'remote-a'],
      ['history', 'remote-a', '--json'],
      ['logs', run.id],
      ['logs', run.id, '--json'],
      ['logs', 'remote-a'],
      ['daemon', 'status', '--json'],
    ])
      await expectSameAsLocal(args);
    const logs = await remote(['logs', run.id]);
    expect(logs.stdout).toBe('out\n');
    expect(logs.stderr).toContain('err\n');
  });

  it('Given twin jobs, when one is paused, resumed, triggered and cancelled remotely and the other locally, then the daemon makes each change and both print the same', async () => {
    for (const [name, run] of [
      ['twin-local', local],
      ['twin-remote', remote],
    ] as const)
      // A cron schedule, so their next runs are the same instant whenever each was added.
      expect((await run(['add', name, '--cron', '0 3 * * *', '--', 'true'])).code).toBe(0);

    for (const verb of ['pause', 'resume', 'trigger', 'cancel']) {
      const here = await local([verb, 'twin-local']);
      const there = await remote([verb, 'twin-remote']);
      expect(there.code).toBe(0);
      expect(normal(there.stdout)).toBe(normal(here.stdout, ['twin-local', 'twin-remote']));
      const state = (await local(['show', 'twin-remote', '--json'])).json.job.state;
      expect({ verb, state }).toEqual({
        verb,
        state: { pause: 'paused', resume: 'active', trigger: 'active', cancel: 'cancelled' }[verb],
      });
    }
  });

  it('Given a run that is running, when logs --follow reads it remotely, then it prints its output as it comes and how it ended last', async () => {
    const gate = path.join(elsewhere, 'remote-slow.gate');
    await remote([
      'add',
      'remote-slow',
      '--every',
      '1h',
      '--',
      'sh',
      '-c',
      `echo one; while [ ! -e '${gate}' ]; do sleep 0.1; done; echo two; sleep 1; echo three`,
    ]);
    const triggered = await remote(['trigger', 'remote-slow', '--json']);

    // The run waits at its gate until the follower has surely connected (a loaded machine may take seconds
    // to start a CLI), so the follower sees it running.
    const following = remote(['logs', '--follow', triggered.json.id]);
    await sleep(8_000);
    fs.writeFileSync(gate, '');
    const followed = await following;

    expect(followed.code).toBe(0);
    expect(followed.stdout).toBe('one\ntwo\nthree\n');
    const lines = followed.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/: running, /);
    expect(lines.at(-1)).toMatch(/: succeeded, exit 0, took /);
  });

  it('Given remote and local watch --json, when a job is added through the socket, then both print its event, the same line', async () => {
    await local(['add', 'watch-before', '--every', '1h', '--', 'true']);
    const watchers = [
      watch(elsewhere, { SCHED_REMOTE: url, SCHED_CA_FILE: certFile, SCHED_TOKEN: operator }),
      watch(home),
    ];
    try {
      // Both have replayed what came before; what comes now is live.
      await Promise.all(
        watchers.map((watcher) => watcher.line((event) => event.data.name === 'watch-before')),
      );
      await local(['add', 'watch-after', '--every', '1h', '--', 'true']);

      const [there, here] = await Promise.all(
        watchers.map((watcher) => watcher.line((event) => event.data.name === 'watch-after')),
      );

      expect(there).toEqual(here);
      expect(JSON.parse(there!)).toMatchObject({ type: 'job:created', data: { name: 'watch-after' } });
    } finally {
      for (const watcher of watchers) watcher.stop();
    }
    printed.push(...watchers.map((watcher) => watcher.output()));
  });

  it('Given a job that is not there, an invalid schedule and a stale --if-version, when asked remotely, then the exit codes and messages are the local ones', async () => {
    await local(['add', 'versioned', '--every', '1h', '--', 'true']);
    await local(['update', 'versioned', '--every', '2h']);

    const missing = await expectSameAsLocal(['show', 'no-such-job']);
    const invalid = await expectSameAsLocal(['add', 'bad-cron', '--cron', 'not a cron', '--', 'true']);
    const stale = await expectSameAsLocal(['update', 'versioned', '--every', '3h', '--if-version', '1']);
    const missingJson = await expectSameAsLocal(['show', 'no-such-job', '--json']);

    expect([missing.code, invalid.code, stale.code]).toEqual([3, 2, 4]);
    expect(missingJson.json.error.code).toBe('JOB_NOT_FOUND');
    expect(missing.stderr).not.toMatch(/^\s+at /m);
  });

  it('Given a viewer token, when it adds a job remotely, then it is refused with exit 5 naming the operator role, as a local viewer is, and nothing is stored', async () => {
    const added = await remote(['add', 'viewer-job', '--every', '1h', '--json', '--', 'true'], {
      SCHED_TOKEN: viewer,
    });
    const listed = await remote(['ls', '--json'], { SCHED_TOKEN: viewer });

    expect(added.code).toBe(5);
    expect(added.json.error).toMatchObject({
      code: 'UNAUTHORIZED',
      details: { needed: 'operator', role: 'viewer' },
    });
    expect(added.json.error.message).toMatch(/needs the operator role/);
    expect(listed.code).toBe(0);
    expect((await local(['show', 'viewer-job'])).code).toBe(3);
  });

  it('Given a revoked token, or none, when a command runs remotely, then it exits 5 and says the token was refused or is missing', async () => {
    const doomed = await createToken(home, ['--name', 'doomed', '--role', 'operator']);
    tokens.push(doomed);
    expect((await remote(['ls'], { SCHED_TOKEN: doomed })).code).toBe(0);
    expect((await local(['token', 'revoke', 'doomed'])).code).toBe(0);

    const revoked = await remote(['ls', '--json'], { SCHED_TOKEN: doomed });
    const none = await remote(['ls'], { SCHED_TOKEN: '' });

    expect(revoked.code).toBe(5);
    expect(revoked.json.error.code).toBe('UNAUTHENTICATED');
    expect(none.code).toBe(5);
    expect(none.stderr).toMatch(
      /^Error: A remote daemon needs an API token, and none was given\.\nHint: .*SCHED_TOKEN/,
    );
  });

  it('Given a token file, when it names the token, then the command runs with it; and an unreadable one is a clear error', async () => {
    const tokenFile = path.join(elsewhere, 'token');
    fs.writeFileSync(tokenFile, `${operator}\n`, { mode: 0o600 });

    const listed = await remote(['ls', '--json', '--token-file', tokenFile], { SCHED_TOKEN: '' });
    const missing = await remote(['ls', '--token-file', path.join(elsewhere, 'no-token')], {
      SCHED_TOKEN: '',
    });

    expect(listed.code).toBe(0);
    expect(listed.json.items.length).toBeGreaterThan(0);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^Error: The token file .*no-token cannot be read \(ENOENT\)\./);
  });

  it('Given the remote flags written before the command, when it runs, then it goes to that daemon as with them after', async () => {
    const tokenFile = path.join(elsewhere, 'token-first');
    fs.writeFileSync(tokenFile, `${operator}\n`, { mode: 0o600 });

    const listed = await sched(
      elsewhere,
      ['--remote', url, '--ca-file', certFile, `--token-file=${tokenFile}`, 'ls', '--json'],
      {
        env: { SCHED_REMOTE: '', SCHED_CA_FILE: '', SCHED_TOKEN: '', TZ: 'UTC' },
      },
    );
    printed.push(listed.stdout, listed.stderr);

    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(listed.json.items.length).toBeGreaterThan(0);
  });

  it('Given no server at the URL, when a command runs remotely, then it exits 7 naming the URL', async () => {
    const closedPort = await freePort();
    const down = `https://127.0.0.1:${closedPort}`;

    const result = await remote(['ls'], { SCHED_REMOTE: down });
    const json = await remote(['ls', '--json'], { SCHED_REMOTE: down });

    expect(result.code).toBe(7);
    expect(result.stderr).toBe(
      `Error: The sched daemon at ${down} cannot be reached (ECONNREFUSED).\n` +
        `Hint: Check the URL given with --remote or SCHED_REMOTE (${down}), that a daemon runs there with --api, and that this machine can reach that port.\n`,
    );
    expect(json.json.error).toMatchObject({ code: 'DAEMON_UNAVAILABLE', details: { url: down } });
  });

  it('Given a daemon whose certificate this machine does not trust, when a command runs remotely without --ca-file, then it exits 7 saying so in one sentence, without a stack', async () => {
    const untrusted = await remote(['ls'], { SCHED_CA_FILE: '' });
    const notPem = path.join(elsewhere, 'not-a-ca.pem');
    fs.writeFileSync(notPem, 'hello\n');
    const badFile = await remote(['ls', '--ca-file', notPem], { SCHED_CA_FILE: '' });

    expect(untrusted.code).toBe(7);
    expect(untrusted.stderr).toMatch(
      new RegExp(
        `^Error: The sched daemon at ${url} is not trusted: its TLS certificate failed the check \\(self-signed certificate\\)\\.\\nHint: .*--ca-file`,
      ),
    );
    expect(untrusted.stderr.trim().split('\n')).toHaveLength(2);
    expect(badFile.code).toBe(2);
    expect(badFile.stderr).toMatch(/^Error: The CA file .*not-a-ca\.pem holds no PEM certificate\./);
  });

  it('Given a URL that is not https, when a command runs remotely, then it exits 2 before sending anything', async () => {
    const plain = await remote(['ls'], { SCHED_REMOTE: 'http://sched.example.com:8443' });
    const notUrl = await remote(['ls'], { SCHED_REMOTE: 'sched.example.com' });

    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/^Error: The remote URL must be https:\/\/, not http:\/\/\./);
    expect(notUrl.code).toBe(2);
  });

  it('Given a command that acts on this host, when it is given --remote, then it exits 2 and does nothing', async () => {
    const copy = path.join(elsewhere, 'copy.db');

    const stop = await remote(['daemon', 'stop', '--remote', url]);
    const backup = await remote(['backup', copy]);

    expect(stop.code).toBe(2);
    expect(stop.stderr).toMatch(
      /^Error: `sched daemon stop` stops this host's daemon process .*, so it takes no --remote\./,
    );
    expect(backup.code).toBe(2);
    expect(fs.existsSync(copy)).toBe(false);
    expect((await local(['daemon', 'status'])).code).toBe(0);
  });

  it('Given every remote command of this file, when their output and the daemon log are read, then no token appears in them', async () => {
    const logs = fs
      .readdirSync(home)
      .filter((file) => file.endsWith('.log'))
      .map((file) => fs.readFileSync(path.join(home, file), 'utf8'));

    expect(printed.length).toBeGreaterThan(20);
    for (const token of tokens)
      for (const text of [...printed, daemon.output(), ...logs]) expect(text).not.toContain(token);
  });
});

/** `sched watch --json --since 0 --type job:created` as a child process: its lines as they come. */
function watch(home: string, env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(
    process.execPath,
    [schedBin, 'watch', '--json', '--since', '0', '--type', 'job:created'],
    {
      env: childEnv({ SCHED_HOME: home, NO_COLOR: '1', TZ: 'UTC', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    line: (matches: (event: any) => boolean) =>
      waitFor(async () =>
        output
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .find((line) => matches(JSON.parse(line))),
      ),
    output: () => output,
    stop: () => child.kill('SIGKILL'),
  };
}

/** A loopback port nothing listens on (bound, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

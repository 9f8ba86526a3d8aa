import fs from 'node:fs';
import path from 'node:path';
import { Config, Errors } from '@oclif/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import ClusterStatusCommand from '../../src/commands/cluster/status.js';
import {
  makeHome,
  removeHome,
  repoRoot,
  sched,
  startDaemon,
  type RunningDaemon,
} from '../support/sched-harness.js';
import { federated, SELF_ID } from '../tui/cluster-fixtures.js';
import { FakeDaemonClient, runCommand } from './command-harness.js';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** What the command prints for people while `action` runs (oclif's `log` goes through console.log). */
async function printedBy(action: () => Promise<unknown>): Promise<string> {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line?: unknown) => void lines.push(String(line ?? '')));
  await action();
  return lines.join('\n');
}

describe('sched cluster status (in process)', () => {
  it('given a daemon that answers, when run with --json, then it asks cluster.status once and returns its answer as is', async () => {
    const client = new FakeDaemonClient({ 'cluster.status': federated });
    const result = await runCommand(ClusterStatusCommand, ['--json'], client);
    expect(result).toEqual(federated);
    expect(client.calls).toEqual([{ method: 'cluster.status', params: {} }]);
  });

  it('given a person at the terminal, when run, then the header and the node table are printed', async () => {
    const client = new FakeDaemonClient({ 'cluster.status': federated });
    const printed = await printedBy(() => runCommand(ClusterStatusCommand, [], client));
    expect(printed).toContain(`This node:    ${SELF_ID}`);
    expect(printed).toContain('Coordinator:  8b1d2e3f, term 42');
    expect(printed).toMatch(/NODE +HOST +STATE +SHARDS +LOAD +HEARTBEAT +VERSION +LABELS/);
    expect(printed).toMatch(/\* 8b1d2e3f +build-02/);
  });

  it('given no daemon on the socket, when run, then it exits 7 and says the daemon is not running and how to start it', async () => {
    const home = makeHome('sched-cluster-none-');
    try {
      vi.stubEnv('SCHED_SOCKET', path.join(home, 'sched.sock'));
      let stderr = '';
      vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        stderr += String(chunk);
        return true;
      });
      const config = await Config.load(repoRoot);
      const exit = await ClusterStatusCommand.run([], config).catch((error: unknown) => error);
      expect(exit).toBeInstanceOf(Errors.ExitError);
      expect((exit as Errors.ExitError).oclif.exit).toBe(7);
      expect(stderr).toMatch(/The sched daemon is not running/);
      expect(stderr).toMatch(/sched daemon run/);
    } finally {
      removeHome(home);
    }
  });
});

describe('sched cluster status (subprocess)', () => {
  const homes: string[] = [];
  let daemon: RunningDaemon | undefined;

  beforeAll(() => {
    if (!fs.existsSync(path.join(repoRoot, 'dist', 'commands', 'cluster', 'status.js')))
      throw new Error('dist/ has no cluster command: run `npm run build` before these tests.');
  });
  afterAll(async () => {
    await daemon?.stop();
    for (const home of homes.splice(0)) removeHome(home);
  });
  const home = (prefix: string) => {
    const made = makeHome(prefix);
    homes.push(made);
    return made;
  };

  // A change here is a change for scripts: review it as one.
  it('keeps its flags and arguments', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'oclif.manifest.json'), 'utf8'));
    const command = manifest.commands['cluster:status'];
    expect({ flags: Object.keys(command.flags).sort(), args: Object.keys(command.args) }).toEqual({
      flags: ['ca-file', 'json', 'remote', 'token-file'],
      args: [],
    });
  });

  it('given no daemon in SCHED_HOME, when `sched cluster status --json` runs, then it exits 7 with DAEMON_UNAVAILABLE', async () => {
    const result = await sched(home('sched-cluster-none-'), ['cluster', 'status', '--json']);
    expect(result.code).toBe(7);
    expect(result.json.error.code).toBe('DAEMON_UNAVAILABLE');
    expect(result.json.error.hint).toMatch(/sched daemon run/);
  });

  it('given a daemon on its own SQLite store, when `sched cluster status --json` runs, then it is a cluster of one holding every shard', async () => {
    daemon = await startDaemon(home('sched-cluster-single-'));
    const result = await sched(daemon.home, ['cluster', 'status', '--json']);
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ mode: 'single', unassignedShards: 0 });
    expect(Object.keys(result.json).sort()).toEqual([
      'coordinator',
      'firingLagMs',
      'mapPublishedAt',
      'mode',
      'node',
      'nodes',
      'now',
      'term',
      'unassignedShards',
    ]);
    expect(result.json.coordinator).toBe(result.json.node);
    expect(result.json.nodes).toEqual([
      expect.objectContaining({
        id: result.json.node,
        self: true,
        coordinator: true,
        alive: true,
        shards: 256,
      }),
    ]);
  });
});

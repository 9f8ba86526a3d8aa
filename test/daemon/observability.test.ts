import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  makeHome,
  removeHome,
  sched,
  startDaemon,
  waitFor,
  type RunningDaemon,
} from '../support/sched-harness.js';

/** Parses Prometheus text exposition into samples: `name{labels} value`. */
function parsePrometheus(
  text: string,
): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const samples = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').match(/[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"/g) ?? []) {
      const [key, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 2, -1)];
      labels[key] = value;
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

interface HealthBody {
  status: string;
  timestamp: string;
  version: string;
  uptime_seconds: number;
  components: Record<string, { status: string; latency_ms: number; error?: string }>;
}

describe('metrics and health endpoints', () => {
  const daemons: RunningDaemon[] = [];
  const homes: string[] = [];

  afterEach(async () => {
    for (const daemon of daemons.splice(0)) await daemon.stop('SIGKILL');
    for (const dir of homes.splice(0)) removeHome(dir);
  });

  const start = async () => {
    const home = makeHome();
    homes.push(home);
    const daemon = await startDaemon(home, ['--metrics', '127.0.0.1:0']);
    daemons.push(daemon);
    const started = daemon
      .output()
      .split('\n')
      .find((line) => line.includes('"daemon:started"'))!;
    const address = JSON.parse(started).metricsAddress as string;
    return { home, daemon, base: `http://${address}` };
  };

  it('serves Prometheus text with job, run, lateness and duration metrics after real runs', async () => {
    const { home, base } = await start();
    await sched(home, ['add', 'tick', '--every', '1s', '--', 'true']);
    await sched(home, ['add', 'broken', '--every', '1h', '--shell', 'exit 1']);
    await sched(home, ['trigger', 'broken']);
    await waitFor(
      async () =>
        (await sched(home, ['history', 'tick', '--status', 'succeeded', '--json'])).json.items.length >= 2,
    );

    const response = await fetch(`${base}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/text\/plain/);
    const samples = parsePrometheus(await response.text());
    const value = (name: string, labels: Record<string, string> = {}) =>
      samples.find(
        (sample) =>
          sample.name === name && Object.entries(labels).every(([key, v]) => sample.labels[key] === v),
      )?.value;

    expect(value('sched_jobs', { state: 'active' })).toBe(2);
    expect(value('sched_runs_total', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(2);
    expect(value('sched_runs_total', { outcome: 'failed' })).toBe(1);
    expect(value('sched_firing_lateness_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(value('sched_run_duration_seconds_count', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(2);
    expect(value('sched_store_operation_seconds_count', { operation: 'recordFire' })).toBeGreaterThanOrEqual(
      2,
    );
    expect(value('sched_queue_depth')).toBe(0);
    expect(samples.some((sample) => sample.name === 'sched_runs_running')).toBe(true);
    // A daemon on its own store is a cluster of one: coordinator of every shard.
    expect(value('sched_cluster_shards_owned')).toBe(256);
    expect(value('sched_cluster_is_coordinator')).toBe(1);
    expect(value('sched_cluster_nodes', { state: 'alive' })).toBe(1);
  });

  it('answers /health, /ready and /live with status, components, uptime and version', async () => {
    const { base } = await start();
    for (const route of ['/health', '/ready', '/live', '/startup']) {
      const response = await fetch(`${base}${route}`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as HealthBody;
      expect(body).toMatchObject({
        status: 'UP',
        version: expect.any(String),
        uptime_seconds: expect.any(Number),
      });
      expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
      for (const component of Object.values(body.components) as Array<{
        status: string;
        latency_ms: number;
      }>) {
        expect(component).toMatchObject({ status: 'UP', latency_ms: expect.any(Number) });
      }
    }
    const health = (await (await fetch(`${base}/health`)).json()) as HealthBody;
    expect(Object.keys(health.components).sort()).toEqual(['database', 'event_loop', 'socket']);
  });

  it('turns /health and /ready unhealthy when the store becomes unreachable, and /live stays up', async () => {
    const { home, base } = await start();
    fs.renameSync(path.join(home, 'sched.db'), path.join(home, 'moved.db'));

    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(503);
    const body = (await health.json()) as HealthBody;
    expect(body.status).toBe('DOWN');
    expect(body.components.database).toMatchObject({
      status: 'DOWN',
      error: expect.stringMatching(/moved|deleted/),
    });
    expect((await fetch(`${base}/ready`)).status).toBe(503);
    expect((await fetch(`${base}/live`)).status).toBe(200);

    fs.renameSync(path.join(home, 'moved.db'), path.join(home, 'sched.db'));
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });
});

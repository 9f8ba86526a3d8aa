import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePeerPorts, newClusterKeyFile, peerArgs } from '../support/peer-daemons.js';
import { sched, sleep, untilStarted, useDaemons, waitFor } from '../support/sched-harness.js';

/** Past the 10 s a write waits for a majority before it is refused with NO_QUORUM. */
const PAST_COMMIT_TIMEOUT_MS = 13_000;

describe('peer mode: the first members of a new cluster started one by one', () => {
  const { home, start, launch } = useDaemons(afterEach);

  async function newCluster(size: number) {
    const homes = Array.from({ length: size }, () => home());
    const ids: string[] = [];
    for (const port of await freePeerPorts(size)) ids.push(`127.0.0.1:${port}`);
    const keyFile = path.join(homes[0]!, 'cluster.key');
    await newClusterKeyFile(homes[0]!, keyFile);
    return { homes, ids, keyFile };
  }

  it('the first waits for a majority, however long, says so in its log, and starts once a second member is up', async () => {
    const { homes, ids, keyFile } = await newCluster(3);
    const first = launch(homes[0]!, peerArgs(ids, 0, keyFile));
    await waitFor(async () => first.output().includes('"cluster:waiting"'), 30_000, 100);
    await sleep(PAST_COMMIT_TIMEOUT_MS);
    expect(first.process.exitCode, first.output()).toBeNull();
    expect(first.output()).not.toContain('"daemon:started"');
    expect(first.output()).toContain('waiting for a majority of the voters before recording the secret key');
    // What it sees is its gossip: members it has not probed yet count as seen.
    expect(first.output()).toMatch(/it sees \d of 3 voters: /);

    // As an operator does, the second host gets the secret key the first one made.
    fs.copyFileSync(path.join(homes[0]!, 'secret.key'), path.join(homes[1]!, 'secret.key'));
    await start(homes[1]!, peerArgs(ids, 1, keyFile));
    await untilStarted(first);

    const added = await sched(homes[0]!, ['add', 'nightly', '--cron', '0 3 * * *', '--', 'true']);
    expect(added.code, added.stderr).toBe(0);
    const listed = await waitFor(async () => {
      const ls = await sched(homes[1]!, ['ls', '--json']);
      return ls.code === 0 && ls.json.items.some((job: { name: string }) => job.name === 'nightly')
        ? ls
        : null;
    }, 20_000);
    expect(listed.code).toBe(0);
  }, 120_000);

  it('a member still waiting for a majority stops at once and cleanly when asked to', async () => {
    const { homes, ids, keyFile } = await newCluster(3);
    const lone = launch(homes[0]!, peerArgs(ids, 0, keyFile));
    await waitFor(async () => lone.output().includes('"cluster:waiting"'), 30_000, 100);
    expect(await lone.stop('SIGTERM')).toBe(0);
    expect(lone.output()).toContain('"daemon:stopping"');
    expect(lone.output()).not.toMatch(/^\s+at /m);
  }, 90_000);
});

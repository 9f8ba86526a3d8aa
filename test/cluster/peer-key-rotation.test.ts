import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  leaderAgreed,
  newClusterKeyFile,
  peerDrops,
  peerStatus,
  startPeerDaemons,
  WITH_METRICS,
} from '../support/peer-daemons.js';
import { sched, sleep, useDaemons, waitFor, type CliResult } from '../support/sched-harness.js';

interface Load {
  acknowledged: string[];
  failures: CliResult[];
  stop(): Promise<void>;
}

/** Adds jobs through the node of `dir`, one after another, until stopped: what a busy user does meanwhile. */
function addJobsThrough(dir: string): Load {
  const load: Load = { acknowledged: [], failures: [], stop: async () => undefined };
  let running = true;
  const loop = (async () => {
    for (let index = 0; running; index += 1) {
      const name = `load-${index}`;
      const added = await sched(dir, ['add', name, '--every', '1h', '--json', '--', '/bin/true']);
      if (added.code === 0) load.acknowledged.push(name);
      else load.failures.push(added);
      // Steady, not flat out: each add is a process of its own on a machine other tests share.
      await sleep(200);
    }
  })();
  load.stop = async () => {
    running = false;
    await loop;
  };
  return load;
}

/** Which of `names` the node of `dir` does not list (yet): a write is answered once applied where it was made. */
async function missingOn(dir: string, names: string[]): Promise<string[]> {
  const listed = await sched(dir, ['ls', '--json', '--all']);
  expect(listed.code, listed.stderr).toBe(0);
  const there = new Set(listed.json.items.map((job: { name: string }) => job.name));
  return names.filter((name) => !there.has(name));
}

async function onEveryNode(homes: string[], names: string[]): Promise<void> {
  await waitFor(
    async () =>
      (await Promise.all(homes.map((dir) => missingOn(dir, names)))).every((gone) => gone.length === 0),
    60_000,
    250,
  );
}

describe('peer mode: rotating the cluster key while the cluster works', () => {
  const harness = useDaemons(afterEach);

  it('Given three peers under load, when a new key is installed, used and the old one removed on each in turn, then every acknowledged add is on all three, nothing is refused, a leader stays, and a restarted node rejoins with its rotated key file', async () => {
    const { homes, ids, keyFiles, args, daemons } = await startPeerDaemons(3, harness.home, harness.start, {
      ...WITH_METRICS,
      ownKeyFiles: true,
    });
    await leaderAgreed(homes);
    const oldKeys = homes.map((dir, index) => {
      const file = path.join(dir, 'old.key');
      fs.copyFileSync(keyFiles[index]!, file);
      return file;
    });
    const newKeyFile = path.join(homes[0]!, 'new.key');
    await newClusterKeyFile(homes[0]!, newKeyFile);
    const newKeyFiles = homes.map((dir) => {
      const file = path.join(dir, 'new.key');
      if (file !== newKeyFile) fs.copyFileSync(newKeyFile, file, fs.constants.COPYFILE_EXCL);
      return file;
    });
    const beat = await sched(homes[0]!, ['add', 'beat', '--every', '1s', '--', '/bin/true']);
    expect(beat.code, beat.stderr).toBe(0);
    const leaders: (string | null)[] = [];

    const load = addJobsThrough(homes[1]!);
    for (const [step, files] of [
      ['install', newKeyFiles],
      ['use', newKeyFiles],
      ['remove', oldKeys],
    ] as const) {
      await sleep(1_000);
      for (const [index, dir] of homes.entries()) {
        const changed = await sched(dir, ['cluster', 'keys', step, '--from-file', files[index]!, '--json']);
        expect({ step, node: index, code: changed.code, stderr: changed.stderr }).toMatchObject({ code: 0 });
        expect(changed.json.changed).toBe(true);
        leaders.push((await peerStatus(dir)).peers.leader);
      }
    }
    await sleep(1_000);
    await load.stop();

    expect(load.failures.map((failure) => failure.stderr)).toEqual([]);
    expect(load.acknowledged.length).toBeGreaterThan(5);
    // A leader all along: a moment between two (an election when a loaded machine stalls a daemon past its
    // timeout) is not the rotation's doing, which the drop counters below would show.
    expect(leaders.filter((leader) => leader !== null && ids.includes(leader)).length).toBeGreaterThan(
      leaders.length / 2,
    );
    await leaderAgreed(homes);
    await onEveryNode(homes, load.acknowledged);
    const newKey = fs.readFileSync(newKeyFile, 'utf8').trim();
    for (const file of keyFiles) expect(fs.readFileSync(file, 'utf8').trim()).toBe(newKey);
    for (const daemon of daemons) expect((await peerDrops(daemon))['stream/no-key-opens'] ?? 0).toBe(0);
    for (const daemon of daemons) expect((await peerDrops(daemon))['datagram/no-key-opens'] ?? 0).toBe(0);
    const rotatedAt = Date.now();
    const beats = await waitFor(
      async () => {
        const history = await sched(homes[2]!, ['history', 'beat', '--json', '--limit', '200']);
        const runs: { scheduledFor: number }[] = history.json.items;
        return runs.some((run) => run.scheduledFor > rotatedAt) ? runs : null;
      },
      20_000,
      500,
    );
    const instants = beats.map((run) => run.scheduledFor);
    expect(new Set(instants).size, 'an instant fired twice').toBe(instants.length);

    await daemons[2]!.stop('SIGTERM');
    const restarted = await harness.start(homes[2]!, args[2]!);
    // Every node, the restarted one included, sees all three alive and one leader.
    await waitFor(
      async () => {
        const views = await Promise.all(homes.map(peerStatus));
        return views.every(
          (seen) =>
            seen.peers.leader !== null &&
            seen.peers.leader === views[0].peers.leader &&
            seen.peers.members.length === 3 &&
            seen.peers.members.every((member: { state: string }) => member.state === 'alive'),
        );
      },
      30_000,
      200,
    );
    const after = await sched(homes[2]!, ['add', 'after-restart', '--every', '1h', '--', '/bin/true']);
    expect(after.code, after.stderr).toBe(0);
    await onEveryNode(homes, ['after-restart']);
    const listed = await sched(homes[2]!, ['cluster', 'keys', 'list', '--json']);
    expect(listed.json.count).toBe(1);
    for (const daemon of [daemons[0]!, daemons[1]!, restarted])
      expect((await peerDrops(daemon))['stream/no-key-opens'] ?? 0).toBe(0);
  }, 150_000);
});

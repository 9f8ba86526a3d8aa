// `node raft-disk-writer.mjs FILE`: appends Raft log entries to the RaftDisk in FILE, one persist at a time,
// raising the term every 50 and compacting every 200, and prints each index once persist has returned
// (acknowledged, as a follower would acknowledge it to its leader). It runs until it is killed.
import { RaftDisk } from '../../dist/cluster/peer/raft-disk.js';

const disk = RaftDisk.open(process.argv[2]);
const { entries, snapshot } = disk.load();
let index = entries.at(-1)?.index ?? snapshot?.index ?? 0;
for (;;) {
  index += 1;
  const term = Math.floor(index / 50) + 1;
  disk.persist({
    hardState: index % 50 === 0 ? { term, votedFor: 'n2' } : null,
    snapshot: null,
    logChanges: {
      from: index,
      entries: [{ index, term, data: { job: `job-${index}`, pad: 'x'.repeat(200) } }],
    },
  });
  if (index % 200 === 0)
    disk.saveSnapshot({
      index: index - 100,
      term,
      voters: ['n1', 'n2', 'n3'],
      state: { applied: index - 100 },
    });
  process.stdout.write(`${index}\n`);
}

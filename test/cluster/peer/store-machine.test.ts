import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreMachine, type StoreMachineListener } from '../../../src/cluster/peer/store-machine.js';
import { commandOf, type StoreCommand } from '../../../src/cluster/peer/store-commands.js';
import { SESSION_IDLE_ENTRIES } from '../../../src/core/peer/proposer-session.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { createJob, T0 } from '../../store/conformance/fixtures.js';

/** The results of the writes applied, to wait for their group commit before reading. */
const results: Promise<unknown>[] = [];

/** What a machine told its listener, in order. */
function hearing() {
  const heard: string[] = [];
  const failures: Error[] = [];
  const listener: StoreMachineListener = {
    applied: (command, result) => {
      heard.push(`applied ${command.id}`);
      results.push(result);
    },
    repeated: (command) => void heard.push(`repeated ${command.id}`),
    reached: () => undefined,
    restored: () => void heard.push('restored'),
    mapChanged: () => undefined,
    failed: (error) => void failures.push(error),
  };
  return { heard, failures, listener };
}

/** A batch of a run's output: a write that, applied twice, stores two events. */
function note(id: string, at: number | null = 1_000): StoreCommand {
  const batch = { runId: 'r1', jobId: 'j1', stream: 'stdout', data: `note ${id}`, seq: 1, at: 5 };
  const command = commandOf(id, 'n1', 'appendRunOutput', [batch]);
  return at === null ? command : { ...command, at };
}

describe('The store machine: each command applied once, by its id', () => {
  let dir: string;
  const stores: SqliteStore[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-store-machine-'));
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function opened(name: string): SqliteStore {
    const store = openSqliteStore(path.join(dir, `${name}.db`));
    stores.push(store);
    return store;
  }

  async function notes(store: SqliteStore): Promise<string[]> {
    await Promise.all(results.splice(0));
    const events = await store.readRunOutput('r1');
    return events.map((event) => (event.data as { data: string }).data).sort();
  }

  it('Given a command applied, when a copy of it comes in a later entry, then the store is changed once and the copy is heard as repeated', async () => {
    const store = opened('one');
    const { heard, failures, listener } = hearing();
    const machine = new StoreMachine(store, listener);

    machine.apply({ index: 1, term: 1, data: note('n1/a/1') });
    machine.apply({ index: 2, term: 1, data: note('n1/a/2') });
    machine.apply({ index: 3, term: 2, data: note('n1/a/1') });

    expect(await notes(store)).toEqual(['note n1/a/1', 'note n1/a/2']);
    expect(heard).toEqual(['applied n1/a/1', 'applied n1/a/2', 'repeated n1/a/1']);
    expect(machine.appliedIndex).toBe(3);
    expect(machine.hasApplied('n1/a/2')).toBe(true);
    expect(machine.hasApplied('n1/a/3')).toBe(false);
    expect(failures).toEqual([]);
  });

  it('Given commands of two proposers applied out of order, then each is applied once, and copies of any of them are skipped', async () => {
    const store = opened('two');
    const { heard, listener } = hearing();
    const machine = new StoreMachine(store, listener);
    const order = ['n1/a/2', 'n2/b/1', 'n1/a/1', 'n1/a/4', 'n2/b/1', 'n1/a/2', 'n1/a/3', 'n1/a/4'];

    order.forEach((id, index) => machine.apply({ index: index + 1, term: 1, data: note(id) }));

    expect(await notes(store)).toEqual([
      'note n1/a/1',
      'note n1/a/2',
      'note n1/a/3',
      'note n1/a/4',
      'note n2/b/1',
    ]);
    expect(heard.filter((line) => line.startsWith('repeated'))).toEqual([
      'repeated n2/b/1',
      'repeated n1/a/2',
      'repeated n1/a/4',
    ]);
  });

  it('Given a copy of a command after a restart, or after a snapshot restored on another member, then it is skipped there too', async () => {
    const first = opened('first');
    const machine = new StoreMachine(first, hearing().listener);
    machine.apply({ index: 1, term: 1, data: note('n1/a/1') });
    machine.apply({ index: 2, term: 1, data: note('n1/a/3') });
    // The rows as a snapshot ships them to a member that needs them.
    const snapshot = first.replica.copy();
    await first.close();
    stores.splice(stores.indexOf(first), 1);

    const restarted = opened('first');
    const again = hearing();
    new StoreMachine(restarted, again.listener).apply({ index: 3, term: 2, data: note('n1/a/3') });
    const other = opened('other');
    const restored = hearing();
    const fresh = new StoreMachine(other, restored.listener);
    fresh.restore(snapshot);
    fresh.apply({ index: 3, term: 2, data: note('n1/a/1') });
    fresh.apply({ index: 4, term: 2, data: note('n1/a/2') });

    expect(await notes(restarted)).toEqual(['note n1/a/1', 'note n1/a/3']);
    expect(again.heard).toEqual(['repeated n1/a/3']);
    expect(await notes(other)).toEqual(['note n1/a/1', 'note n1/a/2', 'note n1/a/3']);
    expect(restored.heard).toEqual(['restored', 'repeated n1/a/1', 'applied n1/a/2']);
    expect(other.replica.copy().tables['proposer_sessions']).toEqual([
      { proposer: 'n1/a/', through: 3, beyond: '[]', latest_at: 1_000, last_index: 4 },
    ]);
  });

  it('Given a replica copied to a file as of the entries it applied, when another member restores from it, then it has every write, skips what the file holds, keeps its own rows, and the file is removed', async () => {
    const store = opened('leader');
    const machine = new StoreMachine(store, hearing().listener);
    machine.apply({ index: 1, term: 1, data: note('n1/a/1') });
    machine.apply({ index: 2, term: 1, data: note('n1/a/2') });
    expect(machine.snapshot()).toEqual({ appliedIndex: 2, inPlace: true });
    const file = path.join(dir, 'copy.db');
    expect(await store.replica.copyTo(file)).toBe(2);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const other = opened('other');
    const fence = await other.nextFenceEpoch();
    const restored = hearing();
    const fresh = new StoreMachine(other, restored.listener);
    const named = { id: '0123456789abcdef', bytes: fs.statSync(file).size, sha256: '0'.repeat(64) };
    await fresh.restore({ appliedIndex: 2, file: named, received: file });
    fresh.apply({ index: 2, term: 1, data: note('n1/a/2') });
    fresh.apply({ index: 3, term: 1, data: note('n1/a/3') });

    expect(await notes(other)).toEqual(['note n1/a/1', 'note n1/a/2', 'note n1/a/3']);
    expect(restored.heard).toEqual(['restored', 'applied n1/a/3']);
    expect(fresh.appliedIndex).toBe(3);
    expect(await other.nextFenceEpoch()).toBe(fence + 1);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('Given a file being taken in, when the store closes, then the restore is given up without a failure told, and a file that cannot be taken in is a failure', async () => {
    const store = opened('leader');
    new StoreMachine(store, hearing().listener).apply({ index: 1, term: 1, data: note('n1/a/1') });
    const file = path.join(dir, 'copy.db');
    await store.replica.copyTo(file);
    const named = { id: '0123456789abcdef', bytes: fs.statSync(file).size, sha256: '0'.repeat(64) };

    const closing = opened('closing');
    const closed = hearing();
    const restoring = new StoreMachine(closing, closed.listener).restore({
      appliedIndex: 1,
      file: named,
      received: file,
    });
    await closing.close();
    await expect(restoring).rejects.toThrow(/given up as the store closed/);
    expect(closed.failures).toEqual([]);
    expect(fs.existsSync(file)).toBe(false);

    const other = opened('other');
    const refused = hearing();
    const garbage = path.join(dir, 'garbage.db');
    fs.writeFileSync(garbage, Buffer.alloc(8192, 7));
    const machine = new StoreMachine(other, refused.listener);
    await expect(machine.restore({ appliedIndex: 1, file: named, received: garbage })).rejects.toThrow();
    expect(refused.failures).toHaveLength(1);
  });

  it('Given a command that carries no time, or an id of no proposer, then it is applied each time it comes (as a log written before sessions was)', async () => {
    const store = opened('older');
    const { heard, listener } = hearing();
    const machine = new StoreMachine(store, listener);

    machine.apply({ index: 1, term: 1, data: note('n1/a/1', null) });
    machine.apply({ index: 2, term: 1, data: note('n1/a/1', null) });
    machine.apply({ index: 3, term: 1, data: note('no-counter') });
    machine.apply({ index: 4, term: 1, data: note('no-counter') });

    expect(heard).toEqual(['applied n1/a/1', 'applied n1/a/1', 'applied no-counter', 'applied no-counter']);
  });

  it('Given a ledger entry in a command written before entries named their host, when it is applied beside every-host entries of its instant, then it is read as decided once and each node’s entry is kept', async () => {
    const store = opened('hosts');
    const machine = new StoreMachine(store, hearing().listener);
    const job = await createJob(store, 'everywhere');
    const entry = (node: string, host?: string) => ({
      jobId: job.id,
      scheduledFor: T0 + 60_000,
      outcome: 'skipped-overlap',
      reason: `on node ${node}`,
      node,
      decidedAt: T0 + 60_001,
      ...(host === undefined ? {} : { host }),
    });
    const recorded = (id: string, entries: unknown[]) => commandOf(id, 'n1', 'recordOccurrences', [entries]);

    machine.apply({ index: 1, term: 1, data: recorded('n1/a/1', [entry('n1')]) });
    machine.apply({ index: 2, term: 1, data: recorded('n1/a/2', [entry('n1', 'n1'), entry('n2', 'n2')]) });
    machine.apply({ index: 3, term: 1, data: recorded('n1/a/3', [entry('n3'), entry('n2', 'n2')]) });
    await Promise.all(results.splice(0));

    const entries = await store.listOccurrences({ jobId: job.id, order: 'asc', limit: 10 });
    expect(entries.map((listed) => [listed.node, listed.host])).toEqual([
      ['n1', undefined],
      ['n1', 'n1'],
      ['n2', 'n2'],
    ]);
  });

  it('Given a proposer idle for the session horizon, when a new proposer’s first command is applied, then the idle one is forgotten on every member alike', async () => {
    const store = opened('idle');
    const machine = new StoreMachine(store, hearing().listener);
    machine.apply({ index: 1, term: 1, data: note('n1/old/1') });
    machine.apply({ index: 2, term: 1, data: note('n2/busy/1') });

    machine.apply({ index: SESSION_IDLE_ENTRIES + 2, term: 1, data: note('n2/busy/2') });
    machine.apply({ index: SESSION_IDLE_ENTRIES + 3, term: 1, data: note('n3/new/1') });

    const kept = (store.replica.copy().tables['proposer_sessions'] ?? []).map((row) => row['proposer']);
    expect(kept.sort()).toEqual(['n2/busy/', 'n3/new/']);
    expect(machine.hasApplied('n1/old/1')).toBe(false);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/daemon/clock.js';
import { EventRelay } from '../../src/daemon/event-relay.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { StoredEvent } from '../../src/store/store.js';
import { createJob } from '../store/conformance/fixtures.js';
import { usePostgres } from '../support/postgres.js';
import { waitFor } from '../support/sched-harness.js';

const postgres = usePostgres();

/**
 * Two nodes' stores on one PostgreSQL database and the relay of node A over its own store, whose outbox
 * reads are counted: what it reads while no one on A takes events, and what it passes on once someone does.
 */
describe('the event relay reads what someone takes', () => {
  const cleanups: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function twoNodes() {
    const database = await postgres.migratedDatabase();
    const a = await openPostgresStore(database.url, { poolSize: 2 });
    const b = await openPostgresStore(database.url, { poolSize: 2 });
    cleanups.push(async () => {
      await a.close();
      await b.close();
      await database.drop();
    });
    a.markEventsWith('node-a');
    b.markEventsWith('node-b');
    const reads = { events: 0, ids: 0 };
    const countedA = new Proxy(a, {
      get(target, property, receiver) {
        if (property === 'readEvents') reads.events += 1;
        if (property === 'readEventIds') reads.ids += 1;
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    }) as PostgresStore;
    let wanted = false;
    const published: StoredEvent[] = [];
    const relay = new EventRelay({
      store: countedA,
      clock: systemClock,
      node: 'node-a',
      publish: (event) => published.push(event),
      wanted: () => wanted,
      onError: (error) => {
        throw error;
      },
    });
    await relay.start();
    cleanups.push(() => relay.stop());
    return { a, b, reads, published, want: () => (wanted = true) };
  }

  it('Given no one takes events on A, when B stores some, then A follows their ids alone and passes nothing on; once someone does, B’s later events arrive whole and A’s own never', async () => {
    const { a, b, reads, published, want } = await twoNodes();
    const early = await createJob(b, 'early');
    await waitFor(async () => reads.ids > 0 && (await b.latestEventId()) > 0, 10_000);
    const latest = await b.latestEventId();
    // The relay has read up to B's event by id: one more read with ids alone comes after it.
    const idsBefore = reads.ids;
    await waitFor(async () => reads.ids > idsBefore, 10_000);
    expect(reads.events).toBe(0);
    expect(published).toEqual([]);

    want();
    const late = await createJob(b, 'late');
    await createJob(a, 'own');
    await waitFor(async () => published.length >= 1 && reads.events > 0, 10_000);
    // Long enough for A's own event to be read too.
    const eventsBefore = reads.events;
    await waitFor(async () => reads.events > eventsBefore + 1, 10_000);

    expect(published.map((event) => [event.type, event.node, event.jobId])).toEqual([
      ['job:created', 'node-b', late.id],
    ]);
    expect(published[0]?.id).toBeGreaterThan(latest);
    expect(published[0]?.data).toMatchObject({ id: late.id, name: 'late' });
    expect(published.some((event) => event.jobId === early.id)).toBe(false);
  });
});

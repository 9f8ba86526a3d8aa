import { describe, expect, it } from 'vitest';
import { EventStream } from '../../src/daemon/event-stream.js';
import { DaemonEvents } from '../../src/daemon/events.js';
import { systemClock } from '../../src/daemon/clock.js';
import type { EventMessage } from '../../src/ipc/protocol.js';
import type { ServerConnection } from '../../src/ipc/transport.js';

function fakeConnection(unread: () => number): ServerConnection & { sent: EventMessage[]; closed: boolean } {
  const connection = {
    id: 1,
    sent: [] as EventMessage[],
    closed: false,
    send: (message: unknown) => void connection.sent.push(message as EventMessage),
    peer: null,
    onClose: () => undefined,
    pendingBytes: unread,
    close: () => void (connection.closed = true),
  };
  return connection;
}

const clock = { ...systemClock, now: () => 1_000 };
const run = { id: 'run-1', jobId: 'job-1' };

describe('EventStream', () => {
  it('Given a subscriber filtered to one run, when events of two runs are published, then it gets only its run', () => {
    const events = new DaemonEvents();
    const stream = new EventStream(events, clock);
    const connection = fakeConnection(() => 0);
    stream.subscribe(7, connection, { runId: 'run-1' });

    events.emit('run:output', { runId: 'run-2', stream: 'stdout', data: 'other', seq: 1 });
    events.emit('run:output', { runId: 'run-1', stream: 'stdout', data: 'mine', seq: 2 });

    expect(connection.sent).toEqual([
      {
        kind: 'event',
        subscription: 7,
        event: {
          type: 'run:output',
          at: 1_000,
          data: { runId: 'run-1', stream: 'stdout', data: 'mine', seq: 2 },
        },
      },
    ]);
  });

  it('Given a subscriber filtered by type, when other types are published, then they are not sent', () => {
    const events = new DaemonEvents();
    const stream = new EventStream(events, clock);
    const connection = fakeConnection(() => 0);
    stream.subscribe(1, connection, { types: ['run:finished'] });

    events.emit('tick:late', { jobId: 'job-1', dueAt: 0, firedAt: 5_000 });
    events.emit('run:fired', run as never);
    events.emit('run:finished', run as never);

    expect(connection.sent.map((message) => message.event.type)).toEqual(['run:finished']);
  });

  it('Given a subscriber that stopped reading, when the next event comes, then it is dropped with a reason and disconnected while others go on', () => {
    const events = new DaemonEvents();
    const stream = new EventStream(events, clock, 1_024);
    const slow = fakeConnection(() => 2_048);
    const healthy = fakeConnection(() => 0);
    stream.subscribe(1, slow, {});
    stream.subscribe(2, healthy, {});

    events.emit('run:fired', run as never);
    events.emit('run:finished', run as never);

    expect(slow.sent).toHaveLength(1);
    expect(slow.sent[0]!.event).toMatchObject({
      type: 'stream:dropped',
      data: { reason: expect.stringMatching(/too slowly/) },
    });
    expect(slow.closed).toBe(true);
    expect(healthy.sent.map((message) => message.event.type)).toEqual(['run:fired', 'run:finished']);
    expect(stream.subscriberCount).toBe(1);
  });
});

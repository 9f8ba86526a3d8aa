import { describe, expect, it } from 'vitest';
import type { StreamListener } from '../../src/client/daemon-client.js';
import { droppedReason, subscribe } from '../../src/client/event-subscription.js';
import type { StreamEvent } from '../../src/ipc/protocol.js';

/** A connection's stream side: the test plays the daemon. */
class FakeStreams {
  listener: StreamListener | null = null;
  params: unknown;
  closedIds: number[] = [];
  private settle!: { resolve: () => void; reject: (error: Error) => void };

  openStream(params: unknown, listener: StreamListener) {
    this.params = params;
    this.listener = listener;
    const ready = new Promise<{ subscribed: true; types: null }>((resolve, reject) => {
      this.settle = { resolve: () => resolve({ subscribed: true, types: null }), reject };
    });
    return { id: 7, ready };
  }
  closeStream(id: number) {
    this.closedIds.push(id);
  }
  accept() {
    this.settle.resolve();
  }
  refuse(error: Error) {
    this.settle.reject(error);
  }
}

const created = (n: number): StreamEvent =>
  ({ type: 'daemon:started', at: n, data: { pid: n, at: n } }) as StreamEvent;

describe('subscribe', () => {
  it('given a subscription, when events arrive before and while reading, then they come out in order', async () => {
    const streams = new FakeStreams();
    const events = subscribe(streams, { types: ['job:created'], runId: 'r1' });
    expect(streams.params).toEqual({ types: ['job:created'], runId: 'r1' });
    streams.accept();
    await events.ready;
    streams.listener!.event(created(1));
    const next = events.next();
    expect(await next).toEqual({ done: false, value: created(1) });
    const waiting = events.next();
    streams.listener!.event(created(2));
    expect(await waiting).toEqual({ done: false, value: created(2) });
  });

  it('given a subscription, when the connection closes, then iteration ends after the queued events', async () => {
    const streams = new FakeStreams();
    const events = subscribe(streams);
    streams.accept();
    streams.listener!.event(created(1));
    streams.listener!.closed();
    const seen: StreamEvent[] = [];
    for await (const event of events) seen.push(event);
    expect(seen).toEqual([created(1)]);
  });

  it('given a slow subscriber, when the daemon drops it, then iteration fails with the reason', async () => {
    const streams = new FakeStreams();
    const events = subscribe(streams);
    streams.accept();
    streams.listener!.event({
      type: 'stream:dropped',
      at: 1,
      data: { reason: 'the subscriber read too slowly' },
    });
    const error = await events.next().catch((e: unknown) => e);
    expect(droppedReason(error)).toBe('the subscriber read too slowly');
    expect((error as Error).message).toBe('The event stream was dropped: the subscriber read too slowly.');
    expect(streams.closedIds).toEqual([7]);
  });

  it('given a reader that does not keep up, when more than the bound is queued, then it is dropped instead of growing', async () => {
    const streams = new FakeStreams();
    const events = subscribe(streams, { maxBuffered: 3 });
    streams.accept();
    for (let i = 0; i < 5; i++) streams.listener!.event(created(i));
    for (let i = 0; i < 3; i++) await events.next();
    const error = await events.next().catch((e: unknown) => e);
    expect(droppedReason(error)).toMatch(/fell more than 3 events behind/);
  });

  it('given a refused subscription, when reading, then the refusal is the error', async () => {
    const streams = new FakeStreams();
    const events = subscribe(streams);
    streams.refuse(new Error('nope'));
    await expect(events.ready).rejects.toThrow('nope');
    await expect(events.next()).rejects.toThrow('nope');
  });

  it('given a reader that stops early, when it returns, then the stream is released', async () => {
    const streams = new FakeStreams();
    const events = subscribe(streams);
    streams.accept();
    await events.return();
    expect(streams.closedIds).toEqual([7]);
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LogEntry, RaftMessage } from '../../../src/core/consensus/raft-messages.js';
import { raftWire } from '../../../src/core/consensus/raft-wire.js';

type Command = { op: 'add' | 'remove'; job: string } | null;
const command: z.ZodType<Command> = z
  .object({ op: z.enum(['add', 'remove']), job: z.string().max(64) })
  .nullable();
const wire = raftWire(command, z.array(z.string().max(64)).max(1_000));

const id = fc.stringMatching(/^[\x21-\x7e]{1,20}$/);
const count = fc.nat();
const voters = fc.array(id, { maxLength: 7 });
const entry: fc.Arbitrary<LogEntry<Command>> = fc.record(
  {
    index: fc.integer({ min: 1 }),
    term: count,
    data: fc.option(
      fc.record({
        op: fc.constantFrom('add' as const, 'remove' as const),
        job: fc.string({ maxLength: 64 }),
      }),
    ),
    voters,
  },
  { requiredKeys: ['index', 'term', 'data'] },
);
const base = { from: id, to: id, term: count };
const raftMessage: fc.Arbitrary<RaftMessage<Command, string[]>> = fc.oneof(
  fc.record(
    {
      type: fc.constantFrom('vote' as const, 'pre-vote' as const),
      ...base,
      lastLogIndex: count,
      lastLogTerm: count,
      transfer: fc.boolean(),
    },
    { requiredKeys: ['type', 'from', 'to', 'term', 'lastLogIndex', 'lastLogTerm'] },
  ),
  fc.record({
    type: fc.constantFrom('vote-response' as const, 'pre-vote-response' as const),
    ...base,
    granted: fc.boolean(),
  }),
  fc.record(
    {
      type: fc.constant('append' as const),
      ...base,
      prevLogIndex: count,
      prevLogTerm: count,
      entries: fc.array(entry, { maxLength: 20 }),
      leaderCommit: count,
      round: count,
      echo: count,
    },
    {
      requiredKeys: ['type', 'from', 'to', 'term', 'prevLogIndex', 'prevLogTerm', 'entries', 'leaderCommit'],
    },
  ),
  fc.record(
    {
      type: fc.constant('append-response' as const),
      ...base,
      success: fc.boolean(),
      index: count,
      round: count,
      contact: count,
    },
    { requiredKeys: ['type', 'from', 'to', 'term', 'success', 'index'] },
  ),
  fc.record(
    {
      type: fc.constant('snapshot' as const),
      ...base,
      snapshot: fc.record({
        index: count,
        term: count,
        voters,
        state: fc.array(fc.string({ maxLength: 64 })),
      }),
      round: count,
    },
    { requiredKeys: ['type', 'from', 'to', 'term', 'snapshot'] },
  ),
  fc.record({ type: fc.constant('timeout-now' as const), ...base }),
);

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const append = (entries: unknown[]) => ({
  type: 'append',
  from: 'a',
  to: 'b',
  term: 3,
  prevLogIndex: 0,
  prevLogTerm: 0,
  entries,
  leaderCommit: 0,
});

describe('the Raft wire format', () => {
  it('given any valid message, decodes exactly what it encodes', () => {
    fc.assert(
      fc.property(raftMessage, (message) => {
        expect(wire.decode(wire.encode(message))).toEqual({ ok: true, message });
      }),
    );
  });

  it('given arbitrary bytes, text or JSON, decodes without throwing', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 2_000 }), (bytes) => void wire.decode(bytes)));
    fc.assert(fc.property(fc.string({ maxLength: 2_000 }), (text) => void wire.decode(utf8(text))));
    fc.assert(fc.property(fc.jsonValue(), (value) => void wire.decode(utf8(JSON.stringify(value) ?? ''))));
  });

  it.each([
    ['a term that is a string', { ...append([]), term: '3' }, /^term/],
    ['an entry at index 0', append([{ index: 0, term: 1, data: null }]), /entries\.0\.index/],
    [
      'an entry whose data the application refuses',
      append([{ index: 1, term: 1, data: { op: 'drop' } }]),
      /entries\.0\.data/,
    ],
    [
      'a granted flag that is a number',
      { type: 'vote-response', from: 'a', to: 'b', term: 1, granted: 1 },
      /granted/,
    ],
    [
      'a transfer flag that is a string',
      { type: 'vote', from: 'a', to: 'b', term: 2, lastLogIndex: 1, lastLogTerm: 1, transfer: 'yes' },
      /transfer/,
    ],
    ['a timeout-now without a term', { type: 'timeout-now', from: 'a', to: 'b' }, /term/],
    ['a timeout-now to no one', { type: 'timeout-now', from: 'a', to: '', term: 2 }, /to/],
    ['a type no release sends', { type: 'timeout-later', from: 'a', to: 'b', term: 2 }, /type/],
    [
      'too many voters',
      { ...append([{ index: 1, term: 1, data: null, voters: Array(65).fill('v') }]) },
      /voters/,
    ],
  ])('given a message with %s, refuses it with a reason', (_, message, reason) => {
    expect(wire.decode(utf8(JSON.stringify(message)))).toEqual({
      ok: false,
      reason: expect.stringMatching(reason),
    });
  });

  it('given a vote of an older release (no transfer flag), decodes it as one that asks for none', () => {
    const vote = { type: 'vote', from: 'a', to: 'b', term: 2, lastLogIndex: 1, lastLogTerm: 1 };

    const decoded = wire.decode(utf8(JSON.stringify(vote)));

    expect(decoded).toEqual({ ok: true, message: vote });
    expect(decoded.ok && decoded.message.type === 'vote' && decoded.message.transfer).toBeFalsy();
  });

  it('given more entries than a batch may hold, or an infinite term, refuses it', () => {
    const huge = append(
      Array.from({ length: 4_097 }, (_, index) => ({ index: index + 1, term: 1, data: null })),
    );
    expect(wire.decode(utf8(JSON.stringify(huge)))).toEqual({
      ok: false,
      reason: expect.stringMatching(/^entries/),
    });
    expect(wire.decode(utf8(JSON.stringify(append([])).replace('"term":3', '"term":-1e999')))).toMatchObject({
      ok: false,
    });
  });
});

import { z } from 'zod';
import { decodeWire, MAX_RAFT_MESSAGE, wireCount, wireId, type WireResult } from '../peer/wire-fields.js';
import { entryJson } from './entry-json.js';
import type { RaftMessage } from './raft-messages.js';

const MAX_ENTRIES = 4_096;
const MAX_VOTERS = 64;
const utf8 = new TextEncoder();

/**
 * Encodes and decodes Raft messages as JSON, validated on the way in. `data` (an entry's payload) and
 * `state` (a snapshot's) are the application's: their schemas are handed in, and must bound what they
 * accept as this one bounds the rest.
 */
export function raftWire<Data, State>(data: z.ZodType<Data>, state: z.ZodType<State>) {
  const base = { from: wireId, to: wireId, term: wireCount };
  const voters = z.array(wireId).max(MAX_VOTERS);
  const entry = z.object({ index: z.int().min(1), term: wireCount, data, voters: voters.optional() });
  const schema = z.discriminatedUnion('type', [
    z.object({
      type: z.enum(['vote', 'pre-vote']),
      ...base,
      lastLogIndex: wireCount,
      lastLogTerm: wireCount,
      transfer: z.boolean().optional(),
    }),
    z.object({ type: z.enum(['vote-response', 'pre-vote-response']), ...base, granted: z.boolean() }),
    z.object({
      type: z.literal('append'),
      ...base,
      prevLogIndex: wireCount,
      prevLogTerm: wireCount,
      entries: z.array(entry).max(MAX_ENTRIES),
      leaderCommit: wireCount,
      round: wireCount.optional(),
      echo: wireCount.optional(),
    }),
    z.object({
      type: z.literal('append-response'),
      ...base,
      success: z.boolean(),
      index: wireCount,
      round: wireCount.optional(),
      contact: wireCount.optional(),
    }),
    z.object({
      type: z.literal('snapshot'),
      ...base,
      snapshot: z.object({ index: wireCount, term: wireCount, voters, state }),
      round: wireCount.optional(),
    }),
    z.object({ type: z.literal('timeout-now'), ...base }),
  ]);
  return {
    encode: (message: RaftMessage<Data, State>): Uint8Array => utf8.encode(messageJson(message)),
    decode: (bytes: Uint8Array): WireResult<RaftMessage<Data, State>> =>
      decodeWire<RaftMessage<Data, State>>(bytes, schema, MAX_RAFT_MESSAGE),
  };
}

/** A message's JSON; an append's entries from the JSON each entry's data was given once (see dataJson). */
function messageJson(message: RaftMessage<unknown, unknown>): string {
  if (message.type !== 'append' || message.entries.length === 0) return JSON.stringify(message);
  const { entries, ...rest } = message;
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)},"entries":[${entries.map(entryJson).join(',')}]}`;
}

import type { RaftMessage } from '../../core/consensus/raft-messages.js';
import { tryParsePeerAddress } from '../../core/peer/peer-address.js';
import { MAX_RAFT_MESSAGE, type WireResult } from '../../core/peer/wire-fields.js';
import { PartsAssembler, splitIntoParts } from './message-parts.js';
import type { PeerStreams } from './peer-streams.js';
import type { RaftChannel } from './raft-host.js';

/** The Raft wire format of one application (`raftWire(data.nullable(), state)`). */
export interface RaftWireFormat<Data, State> {
  encode(message: RaftMessage<Data | null, State>): Uint8Array;
  decode(bytes: Uint8Array): WireResult<RaftMessage<Data | null, State>>;
}

export type RaftChannelDrop = 'malformed' | 'unaddressable' | 'too-large' | 'queue-full';

/**
 * A RaftHost's channel over the peer streams: a member's id is its address, each message goes as one
 * sealed frame of the `raft` topic, or, larger than a frame (a snapshot), in parts of the `raft-part`
 * topic put together again on arrival; what arrives is decoded and validated before the host sees it.
 * Sending never throws: a message that cannot go is dropped and counted, which Raft takes as a loss.
 */
export function raftStreamChannel<Data, State>(
  streams: PeerStreams,
  wire: RaftWireFormat<Data, State>,
  onDrop: (reason: RaftChannelDrop, detail: string) => void = () => undefined,
): RaftChannel<Data, State> {
  const assembler = new PartsAssembler();
  let messageId = Math.floor(Math.random() * 2 ** 32);
  return {
    send(message) {
      const to = tryParsePeerAddress(message.to);
      if (to === null) return onDrop('unaddressable', `${message.type} to ${message.to}`);
      const body = wire.encode(message);
      if (body.length > MAX_RAFT_MESSAGE)
        return onDrop('too-large', `${message.type} to ${message.to}: ${body.length} bytes`);
      if (body.length <= streams.maxBody) {
        if (!streams.send(to, 'raft', body)) onDrop('queue-full', `${message.type} to ${message.to}`);
        return;
      }
      messageId = (messageId + 1) >>> 0;
      for (const part of splitIntoParts(body, streams.maxBody, messageId))
        if (!streams.send(to, 'raft-part', part, true))
          return onDrop('queue-full', `${message.type} to ${message.to} (in parts)`);
    },
    onMessage(handler) {
      const deliver = (body: Uint8Array, from: { host: string; port: number }) => {
        const decoded = wire.decode(body);
        if (decoded.ok) handler(decoded.message);
        else onDrop('malformed', `from ${from.host}:${from.port}: ${decoded.reason}`);
      };
      streams.handle('raft', deliver);
      streams.handle('raft-part', (part, from) => {
        const result = assembler.add(`${from.host}:${from.port}`, part);
        if ('done' in result) deliver(result.done, from);
        else if ('refused' in result)
          onDrop('malformed', `from ${from.host}:${from.port}: ${result.refused}`);
      });
    },
  };
}

import type { RaftMessage } from '../../core/consensus/raft-messages.js';
import { tryParsePeerAddress } from '../../core/peer/peer-address.js';
import type { WireResult } from '../../core/peer/wire-fields.js';
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
 * sealed frame of the `raft` topic, and what arrives is decoded and validated before the host sees it.
 * Sending never throws: a message that cannot go is dropped and counted, which Raft takes as a loss.
 */
export function raftStreamChannel<Data, State>(
  streams: PeerStreams,
  wire: RaftWireFormat<Data, State>,
  onDrop: (reason: RaftChannelDrop, detail: string) => void = () => undefined,
): RaftChannel<Data, State> {
  return {
    send(message) {
      const to = tryParsePeerAddress(message.to);
      if (to === null) return onDrop('unaddressable', `${message.type} to ${message.to}`);
      const body = wire.encode(message);
      if (body.length > streams.maxBody)
        return onDrop('too-large', `${message.type} to ${message.to}: ${body.length} bytes`);
      if (!streams.send(to, 'raft', body)) onDrop('queue-full', `${message.type} to ${message.to}`);
    },
    onMessage(handler) {
      streams.handle('raft', (body, from) => {
        const decoded = wire.decode(body);
        if (decoded.ok) handler(decoded.message);
        else onDrop('malformed', `from ${from.host}:${from.port}: ${decoded.reason}`);
      });
    },
  };
}

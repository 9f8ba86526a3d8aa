import type { ClusterKeyring } from '../../core/peer/cluster-keyring.js';
import { MessageSeal, type RejectReason } from './message-seal.js';

/** Where a peer message travels: SWIM's UDP datagrams, or the TCP streams (Raft, push-pull, forwarding). */
export type PeerChannel = 'datagram' | 'stream';

/** A peer message dropped: on which channel, why (one word, for a metric's label), and from or to whom. */
export interface PeerDrop {
  channel: PeerChannel;
  reason: string;
  detail: string;
}

/** The transports' words for a message larger than a message may be, said one way for the metric. */
const RENAMED: Readonly<Record<string, string>> = { 'too-large': 'oversized', oversize: 'oversized' };

/**
 * Names each dropped peer message by channel and reason. A transport says only `unsealed` of a message that
 * did not open; its channel's seal has just said why (no key opens it, too short, an unknown version), so
 * that reason is the one reported, with the transport's detail of who sent it.
 */
export class PeerDrops {
  private readonly sealRefusal: Record<PeerChannel, RejectReason | null> = { datagram: null, stream: null };

  constructor(private readonly report: (drop: PeerDrop) => void) {}

  /** A seal for `channel` whose refusals name the reason of the drop that follows them. */
  seal(ring: ClusterKeyring, channel: PeerChannel): MessageSeal {
    return new MessageSeal(ring, (reason) => (this.sealRefusal[channel] = reason));
  }

  /** What a transport on `channel` calls when it drops a message. */
  on(channel: PeerChannel): (reason: string, detail: string) => void {
    return (reason, detail) => this.report({ channel, reason: this.named(channel, reason), detail });
  }

  private named(channel: PeerChannel, reason: string): string {
    if (reason !== 'unsealed') return RENAMED[reason] ?? reason;
    const refusal = this.sealRefusal[channel];
    this.sealRefusal[channel] = null;
    return refusal ?? reason;
  }
}

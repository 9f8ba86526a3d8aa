import type { Clock } from '../../core/clock.js';
import { tryParsePeerAddress } from '../../core/peer/peer-address.js';
import type { PeerStreams } from './peer-streams.js';
import type { SnapshotPartLink } from './snapshot-sending.js';

/** Bytes of parts left unwritten to one member before the next waits: a few parts, not the whole file. */
const WINDOW_BYTES = 4 * 1024 * 1024;
/** How often a part waiting for room looks again. */
const POLL_MS = 20;

/**
 * The parts of a snapshot file over the peer streams, as sealed frames of the `snapshot-part` topic: a
 * part is sent once what is not yet written to its member is under a window, so a large file is read and
 * sealed as the connection takes it, never queued whole; no room within `stallMs`, or the sender giving the
 * transfer up meanwhile, gives up the part.
 */
export function snapshotPartStreams(
  streams: Pick<PeerStreams, 'send' | 'unwrittenTo' | 'connectionTo' | 'handle'>,
  clock: Clock,
  stallMs: number,
): SnapshotPartLink {
  return {
    async send(member, part, abandoned = () => false) {
      const to = tryParsePeerAddress(member);
      if (to === null || !streams.send(to, 'snapshot-part', part, true)) return false;
      const deadline = clock.monotonic() + stallMs;
      while (streams.unwrittenTo(to) > WINDOW_BYTES) {
        if (clock.monotonic() >= deadline || abandoned()) return false;
        await new Promise<void>((resolve) => clock.setTimer(POLL_MS, resolve));
      }
      return true;
    },
    connection(member) {
      const to = tryParsePeerAddress(member);
      return to === null ? 0 : streams.connectionTo(to);
    },
    onPart(handler) {
      streams.handle('snapshot-part', (part) => handler(part));
    },
  };
}

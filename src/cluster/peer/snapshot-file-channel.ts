import type { Clock } from '../../core/clock.js';
import type { RaftMessage } from '../../core/consensus/raft-messages.js';
import type { ReplicaState, SqliteReplica } from '../../store/sqlite/sqlite-replica.js';
import type { RaftChannel } from './raft-host.js';
import { SnapshotReceiving } from './snapshot-receiving.js';
import { SnapshotSending, type SnapshotMessage, type SnapshotPartLink } from './snapshot-sending.js';

export interface SnapshotFilesOptions {
  /** The member's Raft log file: the copies sent and the files received are kept beside it. */
  beside: string;
  replica: SqliteReplica;
  link: SnapshotPartLink;
  clock: Clock;
  /** Bytes in one part (1 MiB); smaller in a test, for many parts. */
  partBytes?: number;
  /** Whether membership holds `member` dead: a transfer to it is given up (see SnapshotSending). */
  isDead?(member: string): boolean;
  /** A part or file refused, a transfer that failed: for the peer drops' counter and the log. */
  onDrop(reason: 'snapshot-refused' | 'snapshot-failed', detail: string): void;
}

/** `inner` sending snapshots of `replica` as files (see snapshotFileChannel), and how to stop and clean up. */
export function withSnapshotFiles<Data>(
  inner: RaftChannel<Data, ReplicaState>,
  options: SnapshotFilesOptions,
): { channel: RaftChannel<Data, ReplicaState>; close(): Promise<void> } {
  const { replica, link, clock, beside } = options;
  const sending = new SnapshotSending<Data | null>({
    beside,
    copy: (file, stopped) => replica.copyTo(file, stopped),
    link,
    clock,
    partBytes: options.partBytes,
    isDead: options.isDead,
    onFailed: (detail) => options.onDrop('snapshot-failed', detail),
  });
  const receiving = new SnapshotReceiving({
    beside,
    clock,
    refusalOf: (file) => replica.refusalOf(file),
    onRefused: (detail) => options.onDrop('snapshot-refused', detail),
    appliedIndex: () => replica.appliedIndex(),
  });
  link.onPart((part) => receiving.add(part));
  return {
    channel: snapshotFileChannel(inner, sending, receiving, (error) =>
      options.onDrop('snapshot-failed', `a snapshot file received: ${error.message}`),
    ),
    close: async () => {
      await sending.close();
      await receiving.close();
    },
  };
}

/**
 * A RaftHost's channel that sends a snapshot of the replica as a copy of its file, in parts, rather than
 * as one message of every row (which a leader encoded and sealed in one step, answering nothing meanwhile,
 * and which MAX_RAFT_MESSAGE bounds). A snapshot message that names a file reaches the host only once the
 * file is here whole, matches and can be restored from; one of rows (an older version's) goes as it came.
 */
export function snapshotFileChannel<Data>(
  inner: RaftChannel<Data, ReplicaState>,
  sending: SnapshotSending<Data | null>,
  receiving: SnapshotReceiving,
  onError: (error: Error) => void,
): RaftChannel<Data, ReplicaState> {
  return {
    send(message) {
      if (message.type === 'snapshot' && !('tables' in message.snapshot.state))
        sending.ship(message, (named) => inner.send(named));
      else inner.send(message);
    },
    onMessage(handler) {
      inner.onMessage((message) => {
        const state = message.type === 'snapshot' ? message.snapshot.state : null;
        if (state === null || !('file' in state)) return handler(message);
        const snapshot = (message as SnapshotMessage<Data | null>).snapshot;
        void receiving
          .take(state.file, state.appliedIndex)
          .then((received) => {
            if (received === null) return;
            const taken: RaftMessage<Data | null, ReplicaState> = {
              ...(message as SnapshotMessage<Data | null>),
              snapshot: { ...snapshot, state: { ...state, received } },
            };
            handler(taken);
          })
          .catch(onError);
      });
    },
  };
}

import {
  afterApplying,
  proposerSeat,
  seenBefore,
  SESSION_IDLE_ENTRIES,
  type ProposerSession,
} from '../../core/peer/proposer-session.js';
import type { SqliteReplica } from '../../store/sqlite/sqlite-replica.js';
import type { StoreCommand } from './store-commands.js';

/**
 * The commands a member's copy has applied, by id, kept in its SQLite beside what they wrote (replicated, so a
 * snapshot carries them and a restart finds them): a command whose id was applied already is a copy of it,
 * offered again because its first offer went unanswered, and is skipped alike on every member.
 */
export class ProposerSessions {
  private sessions = new Map<string, ProposerSession>();

  constructor(
    private readonly replica: SqliteReplica,
    private readonly failed: (error: Error) => void,
  ) {
    this.reload();
  }

  /** Reads them again from the copy (after a snapshot replaced it). */
  reload(): void {
    this.sessions = new Map(this.replica.sessions().map((session) => [session.proposer, session]));
  }

  /** Whether the command of this id was applied here already (or is too old to be applied any more). */
  has(id: string): boolean {
    const seat = proposerSeat(id);
    return seat !== null && seenBefore(this.sessions.get(seat.proposer), seat.counter);
  }

  /**
   * Takes `command` as applied by the entry at `index`, in that entry's group commit; false when it was
   * applied before, and must not be again. A command of no session (its id not a proposer's, or made by a
   * version that stamped no time on it) is always applied.
   */
  firstApplication(command: StoreCommand, index: number): boolean {
    const seat = proposerSeat(command.id);
    if (seat === null || command.at === undefined) return true;
    const session = this.sessions.get(seat.proposer);
    if (seenBefore(session, seat.counter)) return false;
    // A new proposer is a process started: a moment to forget those long gone (rare, and the same on every member).
    if (session === undefined) this.forgetIdleBefore(index - SESSION_IDLE_ENTRIES);
    const next = afterApplying(session, seat.proposer, seat.counter, command.at, index);
    this.sessions.set(seat.proposer, next);
    this.replica.recordSession(next).catch(this.failed);
    return true;
  }

  private forgetIdleBefore(index: number): void {
    if (index <= 0) return;
    for (const [proposer, session] of this.sessions)
      if (session.lastIndex < index) this.sessions.delete(proposer);
    this.replica.forgetSessionsIdleSince(index).catch(this.failed);
  }
}

/**
 * Which of one proposer's commands the replicated log has applied, so that a command offered again (its first
 * offer unanswered, or its entry thought lost) is applied once (Raft's client sessions, Ongaro's thesis §6.3).
 * A proposer is one process of one member: its commands' ids are `${node}/${boot}/${counter}`, counted from 1,
 * and each carries the proposer's monotonic time when it was made (`at`), which only that process reads.
 */
export interface ProposerSession {
  /** The ids' prefix, `${node}/${boot}/`. */
  proposer: string;
  /** Every counter up to this one was applied, or is past being offered again (forgotten). */
  through: number;
  /**
   * The counters applied beyond `through + 1`, as runs `[from, to, atOfFrom]` in order, none touching another
   * or `through`: left by a command not applied yet (or never) before them.
   */
  beyond: Array<[from: number, to: number, atOfFrom: number]>;
  /** The latest `at` of the proposer's commands applied: the proposer's own clock, as far as the log knows it. */
  latestAt: number;
  /** The log index that last applied one of its commands. */
  lastIndex: number;
}

/**
 * How long after a command was made its id is remembered, on its proposer's clock. A write is offered again
 * only until its commit timeout (10 s) answers it, so a copy of it reaches the log within that of its making;
 * two minutes leaves room for a copy that waited in a leader's log. A command never applied is forgotten as
 * soon as a later one of the proposer is that old: a copy of it appearing after that is dropped, as its writer
 * was long told it may not have been made.
 */
export const REMEMBERED_FOR_MS = 120_000;

/**
 * A proposer none of whose commands was applied in this many entries has its session forgotten: its process
 * ended, or it has nothing left to offer again (a copy comes within seconds of the first application, and a
 * million entries take the log far longer than that).
 */
export const SESSION_IDLE_ENTRIES = 1_000_000;

/** The proposer of a command and its counter, read from the command's id; null for an id not of that form. */
export function proposerSeat(id: string): { proposer: string; counter: number } | null {
  const cut = id.lastIndexOf('/');
  if (cut <= 0) return null;
  const digits = id.slice(cut + 1);
  if (!/^[1-9]\d{0,14}$/.test(digits)) return null;
  return { proposer: id.slice(0, cut + 1), counter: Number(digits) };
}

/** Whether the proposer's command `counter` was applied already (or is too old to be applied any more). */
export function seenBefore(session: ProposerSession | undefined, counter: number): boolean {
  if (session === undefined) return false;
  if (counter <= session.through) return true;
  return session.beyond.some(([from, to]) => from <= counter && counter <= to);
}

/** The session once the proposer's command `counter`, made at `at`, is applied by the entry at `index`. */
export function afterApplying(
  session: ProposerSession | undefined,
  proposer: string,
  counter: number,
  at: number,
  index: number,
): ProposerSession {
  const latestAt = Math.max(session?.latestAt ?? at, at);
  const runs = withCounter(session?.beyond ?? [], counter, at);
  let through = session?.through ?? 0;
  // Runs the counters before which are all applied, or too old to come again, join `through`.
  while (runs.length > 0 && (runs[0]![0] === through + 1 || runs[0]![2] < latestAt - REMEMBERED_FOR_MS))
    through = runs.shift()![1];
  return { proposer, through, beyond: runs, latestAt, lastIndex: index };
}

function withCounter(
  beyond: ProposerSession['beyond'],
  counter: number,
  at: number,
): Array<[number, number, number]> {
  const runs = beyond.map((run): [number, number, number] => [...run]);
  const after = runs.findIndex(([from]) => from > counter);
  const next = after === -1 ? runs.length : after;
  const previous = runs[next - 1];
  const following = runs[next];
  if (previous !== undefined && previous[1] === counter - 1) {
    previous[1] = counter;
    if (following !== undefined && following[0] === counter + 1) {
      previous[1] = following[1];
      runs.splice(next, 1);
    }
  } else if (following !== undefined && following[0] === counter + 1) {
    following[0] = counter;
    following[2] = at;
  } else {
    runs.splice(next, 0, [counter, counter, at]);
  }
  return runs;
}

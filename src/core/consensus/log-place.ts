/** Where a leader appended an entry: its index, in that leader's term. */
export interface LogPlace {
  index: number;
  term: number;
}

/**
 * Whether an entry appended at `place` can never commit, now that the entry at `committed` has. Terms never
 * decrease along a log, and every later leader's log holds each committed entry: so a committed entry of
 * another term at the place itself, or of a later term before it, leaves no log in which the place holds
 * that entry and could commit. (A committed entry after the place says nothing: the place was applied first.)
 */
export function placeOverwritten(place: LogPlace, committed: LogPlace): boolean {
  if (committed.index === place.index) return committed.term !== place.term;
  return committed.index < place.index && committed.term > place.term;
}

import { SchedError } from './errors.js';

/**
 * What a live child holds open in the spawner: its stdout and stderr pipes and the pidfd its exit is learnt
 * from; a stdin pipe when it is given a payload, and a status pipe when it runs as another user through
 * sched-run-as.
 */
export function descriptorsOfChild({
  stdinPipe,
  statusPipe,
}: {
  stdinPipe: boolean;
  statusPipe: boolean;
}): number {
  return 3 + (stdinPipe ? 1 : 0) + (statusPipe ? 1 : 0);
}

/** The fewest a child holds: what `max_children` is weighed against the open-file limit with. */
const LEAST_DESCRIPTORS_PER_CHILD = descriptorsOfChild({ stdinPipe: false, statusPipe: false });
/** The most: a budget with less would hold such a run, and every run queued behind it, for good. */
const MOST_DESCRIPTORS_PER_CHILD = descriptorsOfChild({ stdinPipe: true, statusPipe: true });

/** Where the limit is raised: Node starts with its soft limit raised to the hard one, so the hard one counts. */
const RAISE_THE_LIMIT =
  'raise the hard open-file limit (LimitNOFILE= in the systemd unit, `nofile` in /etc/security/limits.conf, `ulimit -Hn` as root)';

/** Kept for the spawner's own: its channel to the daemon, its event loop, the journal files it writes. */
export const SPAWNER_RESERVED_DESCRIPTORS = 64;

/**
 * The default's ceiling where the open-file limit leaves room for more: the original design's 5,000
 * concurrent executions, about 1.5 GB of memory in children with piped output (0.3 MiB each, measured here).
 */
export const DEFAULT_MAX_CHILDREN = 5_000;

export interface ChildSlots {
  /** Children alive at once; further command runs wait in the spawner, first come first served. */
  maxChildren: number;
  /** Descriptors the children may hold together (null: no limit), so a run waits rather than fails with EMFILE. */
  descriptorBudget: number | null;
}

/**
 * The spawner's slots under `openFileLimit` (the daemon's soft limit, which Node raised to the hard one as
 * it started; null when unlimited or unknown) and the `max_children` asked for (null: the default, as many
 * as the limit has room for, DEFAULT_MAX_CHILDREN at most). A number that the limit cannot hold even with
 * the fewest descriptors a child needs is refused: the daemon would never reach it, and would look as if it
 * did.
 */
export function childSlots(openFileLimit: number | null, requested: number | null): ChildSlots {
  if (openFileLimit === null)
    return { maxChildren: requested ?? DEFAULT_MAX_CHILDREN, descriptorBudget: null };
  const descriptorBudget = Math.max(0, openFileLimit - SPAWNER_RESERVED_DESCRIPTORS);
  if (descriptorBudget < MOST_DESCRIPTORS_PER_CHILD) throw tooFewDescriptors(openFileLimit);
  const room = Math.floor(descriptorBudget / LEAST_DESCRIPTORS_PER_CHILD);
  if (requested === null) return { maxChildren: Math.min(DEFAULT_MAX_CHILDREN, room), descriptorBudget };
  if (requested > room) throw beyondTheLimit(requested, openFileLimit, room);
  return { maxChildren: requested, descriptorBudget };
}

function needed(children: number, perChild = LEAST_DESCRIPTORS_PER_CHILD): number {
  return children * perChild + SPAWNER_RESERVED_DESCRIPTORS;
}

function beyondTheLimit(requested: number, openFileLimit: number, room: number): SchedError {
  return new SchedError(
    'VALIDATION_FAILED',
    `max_children is ${requested}, but this daemon may open ${openFileLimit} files and ${requested} children ` +
      `need at least ${needed(requested)} (${LEAST_DESCRIPTORS_PER_CHILD} a child, ` +
      `${SPAWNER_RESERVED_DESCRIPTORS} for the spawner).`,
    {
      hint: `Set max_children to at most ${room}, or ${RAISE_THE_LIMIT}.`,
      details: { maxChildren: requested, openFileLimit, mostChildren: room },
    },
  );
}

function tooFewDescriptors(openFileLimit: number): SchedError {
  return new SchedError(
    'VALIDATION_FAILED',
    `This daemon may open only ${openFileLimit} files: too few to run every command (at least ${needed(1, MOST_DESCRIPTORS_PER_CHILD)}).`,
    {
      hint: `To run commands, ${RAISE_THE_LIMIT}.`,
      details: { openFileLimit },
    },
  );
}

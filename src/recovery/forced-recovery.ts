import fs from 'node:fs';
import path from 'node:path';
import { RaftDisk } from '../cluster/peer/raft-disk.js';
import { forceVoters } from '../core/consensus/forced-voters.js';
import { isSchedError, SchedError } from '../core/errors.js';
import { formatPeerAddress, parsePeerAddress } from '../core/peer/peer-address.js';
import { acquireInstanceLock } from '../daemon/single-instance-lock.js';

export interface ForcedRecoveryResult {
  /** This node, as its log records it. */
  node: string;
  voters: string[];
  /** The term this node was moved to. */
  term: number;
  /** Where its log ends: the survivor whose log goes furthest (by term, then index) is the one elected. */
  lastIndex: number;
  lastTerm: number;
}

/** What a forced recovery does to the survivors' state, said before it is done and when it is refused. */
export const FORCED_RECOVERY_WARNING =
  'WARNING: forcing the voters of a peer cluster. Writes committed only on the nodes left out may be lost, ' +
  'and a node left out must never be started again with its old state (wipe its home, then add it back ' +
  'with `sched daemon run --join` and `sched cluster join`). Run this on every survivor, with the same --voters.';

/**
 * `sched cluster recover --force --voters A,B` on a survivor of a peer cluster that lost its majority for
 * good, with its daemon stopped (the home's lock is held throughout, so none can start meanwhile): writes
 * the survivors as forced voters into this node's Raft state (see forceVoters). The log is left as it is;
 * the daemon, started again, says loudly that it runs on forced voters until its log supersedes them.
 */
export function recoverByForce(options: {
  home: string;
  homeLockPath: string;
  voters: readonly string[];
  force: boolean;
  /** Who ran it, for the log and the audit. */
  by: string;
  now: number;
}): ForcedRecoveryResult {
  const voters = [...new Set(options.voters.map((voter) => formatPeerAddress(parsePeerAddress(voter))))];
  if (voters.length === 0)
    throw new SchedError('VALIDATION_FAILED', '--voters names no voter.', {
      hint: 'Give the survivors, this node included: --voters 10.0.0.1:7946,10.0.0.2:7946.',
    });
  if (!options.force)
    throw new SchedError(
      'VALIDATION_FAILED',
      `Refusing to force the voters (${voters.join(', ')}) without --force; nothing was changed.`,
      {
        hint:
          'This is only for a cluster that lost a majority of its voters for good: while a majority can come back, ' +
          'bring it back instead, and remove dead voters with `sched cluster leave HOST:PORT`. ' +
          `${FORCED_RECOVERY_WARNING} Then add --force.`,
      },
    );
  const raftFile = path.join(options.home, 'raft.db');
  if (!fs.existsSync(raftFile))
    throw new SchedError(
      'VALIDATION_FAILED',
      `There is no peer-mode state in ${options.home} (no raft.db).`,
      {
        hint: 'Run this on a host whose daemon ran with --peers or --join, with the same SCHED_HOME.',
        details: { file: raftFile },
      },
    );
  const lock = lockOutDaemon(options.homeLockPath);
  try {
    const disk = RaftDisk.open<unknown, unknown>(raftFile);
    try {
      const node = disk.recordedNode();
      if (node === null)
        throw new SchedError('VALIDATION_FAILED', `${raftFile} does not record which node it is.`, {
          hint: 'It was written by an older sched: start the daemon once with this version, stop it, and run this again.',
        });
      if (!voters.includes(node))
        throw new SchedError(
          'VALIDATION_FAILED',
          `--voters (${voters.join(', ')}) leaves out this node (${node}).`,
          {
            hint: 'List every survivor, this node included, by the address its peers reach it at.',
          },
        );
      const durable = disk.load();
      const { hardState, forced } = forceVoters(durable, voters);
      disk.force(hardState, { ...forced, at: options.now, by: options.by });
      const lastEntry = durable.entries.at(-1);
      return {
        node,
        voters: [...forced.voters],
        term: forced.term,
        lastIndex: lastEntry?.index ?? durable.snapshot?.index ?? 0,
        lastTerm: lastEntry?.term ?? durable.snapshot?.term ?? 0,
      };
    } finally {
      disk.close();
    }
  } finally {
    lock.release();
  }
}

function lockOutDaemon(homeLockPath: string) {
  try {
    return acquireInstanceLock(homeLockPath);
  } catch (error) {
    if (!isSchedError(error) || error.code !== 'DAEMON_ALREADY_RUNNING') throw error;
    const pid = error.details.pid;
    throw new SchedError(
      'DAEMON_ALREADY_RUNNING',
      `The sched daemon${typeof pid === 'number' ? ` (pid ${pid})` : ''} of this home is running; its voters are forced only while it is stopped. Nothing was changed.`,
      {
        hint: 'Stop it first (`sched daemon stop`, or `systemctl stop sched`), run this again, then start it.',
        details: error.details,
      },
    );
  }
}

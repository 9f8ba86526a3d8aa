import { runAsFor, type DaemonAccount } from '../../core/access/run-as.js';
import { SchedError } from '../../core/errors.js';
import type { Target } from '../../core/job.js';
import { peerCredentialsSupport } from '../../ipc/peer-credentials.js';
import type { RunsAs } from '../../ipc/protocol.js';

/**
 * Whom this daemon starts a job's runs as, as `sched show` says it; null for an HTTP job, which is a request
 * the daemon makes itself, not a process. The owner is looked up in this host's user database.
 */
export function runsAsOf(owner: string, target: Target, daemon: DaemonAccount): RunsAs | null {
  if (target.kind === 'http') return null;
  const runAs = runAsFor(owner, daemon);
  if (runAs.as === 'refused') return { user: owner, uid: null, refused: runAs.reason };
  if (runAs.as === 'daemon') return { user: daemon.user, uid: process.getuid?.() ?? null, refused: null };
  const support = peerCredentialsSupport();
  const account = 'addon' in support ? support.addon.userByName(owner) : null;
  return account === null
    ? { user: owner, uid: null, refused: `no user named ${owner} on this host` }
    : { user: owner, uid: account.uid, refused: null };
}

/**
 * Refuses a command job that this daemon could never start, because it is not root and the job's owner is
 * another user: it would otherwise be stored, and every run fail.
 */
export function checkRunnableBy(owner: string, target: Target, daemon: DaemonAccount): void {
  if (target.kind === 'http') return;
  const runAs = runAsFor(owner, daemon);
  if (runAs.as !== 'refused') return;
  throw new SchedError('UNAUTHORIZED', `Not allowed: ${runAs.reason}.`, {
    hint: `Run your jobs on a daemon of your own (\`sched daemon run\` as ${owner}), or ask for a daemon run by root.`,
    details: { owner, daemonUser: daemon.user },
  });
}

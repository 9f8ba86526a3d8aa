import { accessSync, constants } from 'node:fs';
import os from 'node:os';
import { withOwnerIdentity } from '../../core/access/owner-environment.js';
import { peerCredentialsSupport } from '../../ipc/peer-credentials.js';

/**
 * What to spawn for a job: the command itself in `cwd`, or sched-run-as in front of it (`statusPipe` on
 * fd 3), which enters the job's folder itself.
 */
export type Launch =
  | { file: string; args: string[]; cwd: string | null; env: Record<string, string>; statusPipe: boolean }
  | { problem: string };

/**
 * The launch of a command as `user`, looked up now in this node's user database (so a federation's node
 * starts it as the user of that name on its own host). Anything missing (the user, the run-as program)
 * is a problem that fails the run: it never falls back to the daemon's own user.
 */
export function launchAsOwner(
  user: string,
  command: { file: string; args: readonly string[]; cwd: string | null },
  env: Readonly<Record<string, string>>,
): Launch {
  const support = peerCredentialsSupport();
  if ('reason' in support) return { problem: `cannot start it as ${user}: ${support.reason}` };
  let account: ReturnType<typeof support.addon.userByName>;
  try {
    account = support.addon.userByName(user);
  } catch (error) {
    return { problem: `cannot start it as ${user}: the user database failed (${(error as Error).message})` };
  }
  if (account === null)
    return { problem: `cannot start it as ${user}: no user of that name on this host (its owner is gone?)` };
  const program = support.addon.runAsProgram;
  try {
    accessSync(program, constants.X_OK);
  } catch {
    return {
      problem: `cannot start it as ${user}: ${program} is missing (built by \`npm ci\` with the peer credentials addon; rebuild it with \`npm rebuild sched-peer-credentials\`)`,
    };
  }
  return {
    file: program,
    // The folder is entered by sched-run-as once it is the owner, so it must be theirs to enter.
    args: [
      String(account.uid),
      String(account.gid),
      account.name,
      command.cwd ?? '',
      command.file,
      ...command.args,
    ],
    cwd: null,
    env: withOwnerIdentity(env, account),
    statusPipe: true,
  };
}

/** What sched-run-as wrote on its status pipe ("STEP ERRNO"), as an error code and the step it failed at. */
export function runAsFailure(status: string): { step: string; code: string } | null {
  const match = /^(\w+) (\d+)/.exec(status.trim());
  if (match === null) return null;
  const errno = Number(match[2]);
  const code = Object.entries(os.constants.errno).find(([, value]) => value === errno)?.[0];
  return { step: match[1]!, code: code ?? `errno ${errno}` };
}

import { majority } from '../../core/consensus/quorum.js';
import { SchedError } from '../../core/errors.js';

type Why =
  | 'no-leader'
  | 'leader-silent'
  | 'busy'
  | 'pending'
  | 'already-voter'
  | 'not-voter'
  | 'last-voter'
  | 'not-alive'
  | 'older-build'
  | 'no-live-majority'
  | 'lost-leadership'
  | 'behind'
  | 'not-committed'
  | 'failed';

type Facts = Record<string, unknown>;

const list = (ids: unknown): string => (ids as string[]).join(', ');

/**
 * Why a change of voters was refused or could not be seen through, as the error `sched cluster join|leave`
 * prints: what happened, and what to do. Refusals made before anything was proposed changed nothing.
 */
export function voterChangeRefusal(why: Why, facts: Facts): SchedError {
  const [code, message, hint] = describe(why, facts);
  return new SchedError(code, message, { hint, details: { reason: why } });
}

function describe(why: Why, facts: Facts): [SchedError['code'], string, string] {
  switch (why) {
    case 'no-leader': {
      const { raft, self } = facts as { raft: { voters: readonly string[] }; self: string };
      return raft.voters.includes(self)
        ? [
            'NO_QUORUM',
            'No leader is known: this node cannot reach a majority of the voters now; nothing was changed.',
            'Retry once a majority is back (`sched cluster status`). A cluster that lost its majority for good is recovered with `sched cluster recover --force`.',
          ]
        : [
            'INVALID_STATE',
            `This node (${self}) is not a voter and hears no leader, so it cannot change the cluster; nothing was changed.`,
            'Run the command on a voter of the cluster (`sched cluster status` there lists them).',
          ];
    }
    case 'leader-silent':
      return [
        'NO_QUORUM',
        `The leader (${facts.leader as string}) did not answer; the change may or may not have been made.`,
        'Check with `sched cluster status`, and run the command again if it was not.',
      ];
    case 'busy': {
      const { action, member } = facts.under as { action: string; member: string };
      return [
        'INVALID_STATE',
        `Another change is under way (${action === 'add' ? 'adding' : 'removing'} ${member}); nothing was changed.`,
        'Voters change one at a time: run this again once that one is done (`sched cluster status`).',
      ];
    }
    case 'pending':
      return [
        'INVALID_STATE',
        'An earlier change of voters is not committed yet; nothing was changed.',
        'Voters change one at a time: run this again in a few seconds, once a majority holds the earlier one.',
      ];
    case 'already-voter':
      return [
        'INVALID_STATE',
        `${facts.member as string} is already a voter (voters: ${list(facts.voters)}); nothing was changed.`,
        'To add another host, start its daemon with --join and run `sched cluster join` with its address.',
      ];
    case 'not-voter':
      return [
        'INVALID_STATE',
        `${facts.member as string} is not a voter of this cluster (voters: ${list(facts.voters)}); nothing was changed.`,
        'Name one of the voters, as `sched cluster status` lists them (host:port).',
      ];
    case 'last-voter':
      return [
        'INVALID_STATE',
        `${facts.member as string} is the last voter: a cluster needs one; nothing was changed.`,
        'Add another voter first (`sched cluster join`), or stop this daemon if the cluster is to go.',
      ];
    case 'not-alive':
      return [
        'INVALID_STATE',
        `${facts.member as string} is not alive as gossip sees it; nothing was changed.`,
        `Start its daemon with --join ${facts.self as string} (the same --cluster-key-file, and --bind at that address), wait until \`sched cluster status\` shows it alive, then run this again.`,
      ];
    case 'older-build':
      return [
        'INVALID_STATE',
        `${facts.member as string} speaks peer protocol ${facts.version as number} as gossip reports it, older than the 3 a member of this cluster needs; nothing was changed.`,
        'Upgrade sched on that host and start its daemon again, wait until `sched cluster status` shows it alive, then run this again.',
      ];
    case 'no-live-majority': {
      const { change, next, alive } = facts as {
        change: { action: string; member: string };
        next: string[];
        alive: string[];
      };
      return [
        'INVALID_STATE',
        `${change.action === 'add' ? 'Adding' : 'Removing'} ${change.member} would leave ${next.length} voters of which ${alive.length} are alive, short of the ${majority(next.length)} a majority needs; nothing was changed.`,
        'Bring the dead voters back first, or remove them one at a time (`sched cluster leave HOST:PORT`).',
      ];
    }
    case 'lost-leadership':
      return [
        'NO_QUORUM',
        `The leader lost its place before the change was committed${facts.reason ? ` (${facts.reason as string})` : ''}; it may or may not have been made.`,
        'Check with `sched cluster status`, and run the command again if it was not.',
      ];
    case 'behind':
      return [
        'INVALID_STATE',
        `${facts.member as string} has not caught up with the log (it holds ${facts.held as number} of ${facts.target as number} entries); nothing was changed.`,
        'Check that its daemon runs with the same cluster key and can reach the leader over TCP, then run this again.',
      ];
    case 'not-committed':
      return [
        'NO_QUORUM',
        `The new voters (${list(facts.next)}) were proposed but not committed in time; the change takes effect once a majority of them holds it.`,
        'Check with `sched cluster status`; if a voter is down, bring it back.',
      ];
    case 'failed':
      return [
        'INVALID_STATE',
        `The change could not be made (${facts.reason as string}); nothing was changed.`,
        'Run it again; `sched cluster status` shows the voters in force.',
      ];
  }
}

import type {
  MemberLeaseSimulationOptions,
  ScriptedStep,
  SimulationControl,
} from './member-lease-simulation.js';

export type MemberLeaseScenario = Omit<MemberLeaseSimulationOptions, 'seed'>;

/** Random faults of each kind, to be run over many seeds. */
export const RANDOM_SCENARIOS: Record<string, MemberLeaseScenario> = {
  'lossy, duplicating, reordering links with partitions and one-way cuts': {},
  'one-way cuts and flaky links that change often, with crashes': {
    cutRate: 0.05,
    oneWayShare: 1,
    flakyShare: 0.7,
    crashRate: 0.01,
    restartRate: 0.3,
  },
  'long cuts, members restarting while cut off': {
    cutRate: 0.01,
    oneWayShare: 0.6,
    flakyShare: 0.5,
    crashRate: 0.01,
    restartRate: 0.3,
  },
  'late messages (up to 1.5 s) that overtake one another': {
    faults: { maxDelayMs: 1_500 },
    cutRate: 0.03,
  },
  'five members': { members: 5, cutRate: 0.03, crashRate: 0.003 },
};

/** The leader now, and another member (a script's first step picks them). */
function leaderAndMember(control: SimulationControl): { leader: string; member: string } {
  const leader = control.leader() ?? control.members[0]!;
  return { leader, member: control.members.find((id) => id !== leader)! };
}

/**
 * A member caught up with the log is cut off, crashes and restarts still cut off, hears the leader again
 * while its own responses are lost, and gets one forwarded fire through: the leader has heard nothing else
 * from this life of it. Its lease ran from its start; the leader must count the forwarded write as contact,
 * or it drops the member (silent since before the crash) while the fire's run is alive.
 */
export function restartCutOff(): ScriptedStep[] {
  let leader = '';
  let member = '';
  return [
    {
      at: 3_000,
      act: (control) => {
        ({ leader, member } = leaderAndMember(control));
        control.links.isolate(member, control.members);
      },
    },
    { at: 3_500, act: (control) => control.crash(member) },
    { at: 9_000, act: (control) => control.boot(member) },
    { at: 9_100, act: (control) => control.links.restore(leader, member) },
    {
      at: 9_500,
      act: (control) => {
        control.links.restore(member, leader);
        control.fire(member);
        control.links.cut(member, leader);
      },
    },
  ];
}

/** A member with runs going is cut off from the others for fifteen seconds: the plain case the lease is for. */
export function cutOffWithRuns(): ScriptedStep[] {
  let member = '';
  const fire = (at: number): ScriptedStep => ({ at, act: (control) => control.fire(member) });
  return [
    { at: 3_000, act: (control) => ({ member } = leaderAndMember(control)) },
    fire(3_100),
    fire(3_400),
    fire(3_700),
    { at: 4_000, act: (control) => control.links.isolate(member, control.members) },
    { at: 19_000, act: (control) => control.links.heal() },
  ];
}

/**
 * A member forwards a fire and hears nothing from the leader for twelve seconds after: its lease runs out,
 * the leader drops it, and only then does the fire reach it. Its run must never start. Its answers reach
 * the leader 5 to 6 s late once the link is back, so the leader's echo, and the lease it renews, comes only
 * after the fire is applied (the leader sends what a member lacks as soon as it hears it lacks it).
 */
export function fireAfterLeaseRanOut(): ScriptedStep[] {
  let leader = '';
  let member = '';
  return [
    {
      at: 4_000,
      act: (control) => {
        ({ leader, member } = leaderAndMember(control));
        control.fire(member);
        control.links.cut(leader, member);
      },
    },
    {
      at: 16_000,
      act: (control) => {
        control.links.restore(leader, member);
        control.links.slow(member, leader, 5_000, 6_000);
      },
    },
  ];
}

/**
 * The followers' responses reach the leader seconds late (a stalled stream catching up), then the leader is
 * cut off: the followers elect another, while the late responses still arriving keep the old leader passing
 * its check-quorum for as long as they trickle in. The new leader counts the old one as deposed within three
 * election timeouts of its election; the old one must be, or it keeps its runs past the new one's drop.
 */
export function lateResponses(): ScriptedStep[] {
  let leader = '';
  const fire = (at: number): ScriptedStep => ({ at, act: (control) => control.fire(leader) });
  return [
    {
      at: 4_000,
      act: (control) => {
        ({ leader } = leaderAndMember(control));
        for (const id of control.members) if (id !== leader) control.links.slow(id, leader, 1, 6_000);
      },
    },
    fire(4_200),
    fire(4_800),
    fire(5_400),
    {
      at: 6_000,
      act: (control) => control.links.partition([[leader], control.members.filter((id) => id !== leader)]),
    },
  ];
}

/**
 * The leader's messages reach a member 4.5 to 6.5 s late (its stream to the member stalls and catches
 * up) while the member's reach the leader at once: its lease flickers, each late echo confirming a response
 * sent seconds ago, and a fire it made can be applied in a moment of lease between two looks of its watch.
 * Then the member is cut off: any run it started must be stopped before the leader may drop it.
 */
export function leaderSlowToMember(): ScriptedStep[] {
  let leader = '';
  let member = '';
  const fire = (at: number): ScriptedStep => ({ at, act: (control) => control.fire(member) });
  return [
    {
      at: 3_000,
      act: (control) => {
        ({ leader, member } = leaderAndMember(control));
        control.links.slow(leader, member, 4_500, 6_500);
      },
    },
    ...Array.from({ length: 40 }, (_, i) => fire(3_100 + i * 500)),
    { at: 23_200, act: (control) => control.links.isolate(member, control.members) },
  ];
}

/** A script on a quiet network: no loss, short delays, no fires but the script's. */
function scripted(script: ScriptedStep[]): MemberLeaseScenario {
  return { script, randomFires: false, faults: { lossRate: 0, duplicateRate: 0, maxDelayMs: 20 } };
}

export const SCRIPTED_SCENARIOS: Record<string, MemberLeaseScenario> = {
  'a member with runs going cut off for fifteen seconds': scripted(cutOffWithRuns()),
  'a member restarted while cut off gets one forwarded fire through': scripted(restartCutOff()),
  'a member whose fire reaches it only after its lease ran out': scripted(fireAfterLeaseRanOut()),
  'a leader cut off while its followers’ responses arrive seconds late': scripted(lateResponses()),
  'a member hearing the leader 4.5 to 6.5 s late, its lease flickering, then cut off':
    scripted(leaderSlowToMember()),
};

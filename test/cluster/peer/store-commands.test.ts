import { describe, expect, it } from 'vitest';
import { argsOf, commandOf, storeCommandSchema } from '../../../src/cluster/peer/store-commands.js';
import { protocolFeatures } from '../../../src/core/peer/protocol-version.js';
import type { Fire } from '../../../src/store/store.js';
import { newRun, T0 } from '../../store/conformance/fixtures.js';

const fire = (endedHere?: () => readonly string[]): Fire => ({
  jobId: 'j1',
  runs: [newRun('j1', { now: T0 })],
  occurrences: [],
  expectedNextRunAt: T0,
  nextRunAt: T0 + 1_000,
  concurrency: 'forbid',
  writtenAt: () => T0 + 7,
  endedHere,
});

/** The command as a member takes it from the wire: JSON, then the entry's schema. */
const overTheWire = (command: unknown) => storeCommandSchema.parse(JSON.parse(JSON.stringify(command)));

const appliedFires = (command: unknown) => {
  const [arg] = argsOf(overTheWire(command));
  return (Array.isArray(arg) ? arg : [arg]) as Fire[];
};

describe('a fire as a log entry carries it', () => {
  it('Given every member understands them, then the runs that ended on its node are asked for at the proposer and named, and each member gets them back as the fire’s endedHere', () => {
    let asked = 0;
    const ended = () => {
      asked += 1;
      return ['r1', 'r2'];
    };
    const command = commandOf('p/1', 'n1', 'recordFires', [[fire(ended), fire()]], () => protocolFeatures(3));
    expect(asked).toBe(1);
    const [first, second] = appliedFires(command);
    expect(first!.endedHere?.()).toEqual(['r1', 'r2']);
    expect(second!.endedHere).toBeUndefined();
    // What the proposer asked for at once: the time the runs are written, too.
    expect(first!.runs[0]!.now).toBe(T0 + 7);
    expect('endedRuns' in first!).toBe(false);
    expect(
      appliedFires(
        commandOf('p/2', 'n1', 'recordFire', [fire(ended)], () => protocolFeatures(3)),
      )[0]!.endedHere?.(),
    ).toEqual(['r1', 'r2']);
  });

  it('Given a member that does not understand them, then the entry names none, and the features are not asked for writes other than fires', () => {
    let askedFeatures = 0;
    const understood = () => {
      askedFeatures += 1;
      return protocolFeatures(2);
    };
    const command = commandOf('p/1', 'n1', 'recordFire', [fire(() => ['r1'])], understood);
    expect(JSON.stringify(command)).not.toContain('endedRuns');
    expect(appliedFires(command)[0]!.endedHere).toBeUndefined();
    expect(JSON.stringify(commandOf('p/2', 'n1', 'recordFire', [fire(() => ['r1'])]))).not.toContain('r1');
    commandOf('p/3', 'n1', 'appendAudit', [{ id: 'a' }], understood);
    expect(askedFeatures).toBe(1);
  });

  it('Given a fire with no overlap rule, then it names none: no rule asks for them', () => {
    const { concurrency: _none, ...ruleless } = fire(() => ['r1']);
    const command = commandOf('p/1', 'n1', 'recordFire', [ruleless], () => protocolFeatures(3));
    expect(JSON.stringify(command)).not.toContain('endedRuns');
  });

  it('Given more ended runs than a fire names, then the latest ends are named', () => {
    const many = Array.from({ length: 150 }, (_, index) => `r${index}`);
    const command = commandOf('p/1', 'n1', 'recordFire', [fire(() => many)], () => protocolFeatures(3));
    expect(appliedFires(command)[0]!.endedHere?.()).toEqual(many.slice(50));
  });

  it('Given an entry whose ended runs are not a list of ids, then the fire is applied without them, alike on every member', () => {
    const plain = commandOf('p/1', 'n1', 'recordFire', [fire()]);
    for (const endedRuns of ['r1', [1, 2], [{ id: 'r1' }], Array(101).fill('r'), null]) {
      const entry = { ...plain, args: [{ ...(plain.args[0] as object), endedRuns }] };
      const [applied] = appliedFires(entry);
      expect(applied!.endedHere).toBeUndefined();
      expect(applied).not.toHaveProperty('endedRuns');
      expect(applied!.jobId).toBe('j1');
    }
  });
});

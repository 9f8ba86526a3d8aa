import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../../src/core/access/rate-limits.js';
import type { Caller } from '../../src/core/access/roles.js';
import { SchedError } from '../../src/core/errors.js';
import { RequestLimits } from '../../src/daemon/access/request-limits.js';
import { DaemonEvents } from '../../src/daemon/events.js';
import { FakeClock } from '../support/fake-clock.js';

const ada: Caller = { user: 'ada', uid: 1001, gid: 1001, pid: 42, groups: [] };
const bob: Caller = { user: 'bob', uid: 1002, gid: 1002, pid: 43, groups: [] };

function limitsWith(limits: RateLimits = DEFAULT_RATE_LIMITS) {
  const clock = new FakeClock();
  const events = new DaemonEvents();
  const refused: unknown[] = [];
  events.on('request:rate-limited', (refusal) => refused.push(refusal));
  return { clock, refused, limits: new RequestLimits({ limits, clock, events }) };
}

describe('request limits', () => {
  it('given 10 triggers of one job by an operator, refuses the 11th as RATE_LIMITED with the wait', () => {
    const { limits, refused } = limitsWith();
    for (let i = 0; i < 10; i += 1) limits.take('job.trigger', ada, 'operator', 'job-1');

    let refusal: SchedError | undefined;
    try {
      limits.take('job.trigger', ada, 'operator', 'job-1');
    } catch (error) {
      refusal = error as SchedError;
    }

    expect(refusal).toBeInstanceOf(SchedError);
    if (refusal === undefined) return;
    expect(refusal.code).toBe('RATE_LIMITED');
    expect(refusal.exitCode).toBe(6);
    expect(refusal.message).toMatch(/at most 10 a minute for each job\. Try again in 6 s/);
    expect(refusal.details).toEqual({
      method: 'job.trigger',
      verb: 'trigger',
      limitPerMinute: 10,
      retryAfterMs: 6_000,
    });
    expect(refused).toEqual([
      { user: 'ada', uid: 1001, method: 'job.trigger', verb: 'trigger', retryAfterMs: 6_000 },
    ]);
  });

  it('counts triggers per job, and retries and redrives of a job with its triggers', () => {
    const { limits } = limitsWith();
    for (let i = 0; i < 5; i += 1) limits.take('job.trigger', ada, 'operator', 'job-1');
    for (let i = 0; i < 5; i += 1) limits.take('run.retry', ada, 'operator', 'job-1');

    expect(() => limits.take('run.redrive', ada, 'operator', 'job-1')).toThrow(/Try again in/);
    expect(() => limits.take('job.trigger', ada, 'operator', 'job-2')).not.toThrow();
  });

  it('counts each API token apart, though tokens share no uid', () => {
    const { limits } = limitsWith();
    const ci: Caller = {
      user: 'deploy',
      uid: -1,
      gid: -1,
      pid: -1,
      groups: [],
      token: { name: 'ci', role: 'operator' },
    };
    const cd: Caller = { ...ci, token: { name: 'cd', role: 'operator' } };
    for (let i = 0; i < 25; i += 1) limits.take('job.cancel', ci, 'operator', null);

    expect(() => limits.take('job.cancel', ci, 'operator', null)).toThrow(/by token:ci/);
    expect(() => limits.take('job.cancel', cd, 'operator', null)).not.toThrow();
  });

  it('counts each caller apart', () => {
    const { limits } = limitsWith();
    for (let i = 0; i < 25; i += 1) limits.take('job.cancel', ada, 'operator', null);

    expect(() => limits.take('job.cancel', ada, 'operator', null)).toThrow(/Too many cancellations by ada/);
    expect(() => limits.take('job.cancel', bob, 'operator', null)).not.toThrow();
  });

  it('given admins exempt (the default), never limits an admin, such as `sched ls` in a watch loop', () => {
    const { limits } = limitsWith();
    for (let i = 0; i < 1_000; i += 1) limits.take('job.list', ada, 'admin', null);
    expect(limits.size).toBe(0);
  });

  it('given exempt_admins = false, limits admins like everyone', () => {
    const { limits } = limitsWith({ ...DEFAULT_RATE_LIMITS, exemptAdmins: false });
    for (let i = 0; i < 200; i += 1) limits.take('job.list', ada, 'admin', null);
    expect(() => limits.take('job.list', ada, 'admin', null)).toThrow(/at most 200 a minute/);
  });

  it('given a verb set "off", and methods outside the table such as run.kill, never limits them', () => {
    const { limits } = limitsWith({
      ...DEFAULT_RATE_LIMITS,
      perMinute: { ...DEFAULT_RATE_LIMITS.perMinute, get: null },
    });
    for (let i = 0; i < 1_000; i += 1) {
      limits.take('job.get', ada, 'viewer', null);
      limits.take('run.kill', ada, 'operator', 'run-1');
      limits.take('daemon.status', ada, 'viewer', null);
    }
    expect(limits.size).toBe(0);
  });

  it('given a minute without requests, has refilled the bucket and forgets it', async () => {
    const { limits, clock } = limitsWith();
    for (let i = 1; i < 10; i += 1) limits.take('job.trigger', ada, 'operator', `job-${i}`);
    for (let i = 0; i < 10; i += 1) limits.take('job.trigger', ada, 'operator', 'job-0');
    expect(limits.size).toBe(10);
    expect(() => limits.take('job.trigger', ada, 'operator', 'job-0')).toThrow(/Try again/);

    await clock.advanceTo(clock.now() + 60_000);
    limits.take('job.add', bob, 'operator', null);

    expect(limits.size).toBe(1);
    for (let i = 0; i < 10; i += 1) limits.take('job.trigger', ada, 'operator', 'job-0');
  });
});

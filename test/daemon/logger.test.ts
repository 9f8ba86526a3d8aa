import { describe, expect, it } from 'vitest';
import { DaemonEvents } from '../../src/daemon/events.js';
import { logDaemonEvents } from '../../src/daemon/event-log.js';
import { createDaemonLogger } from '../../src/daemon/observability/logger.js';

describe('daemon logs', () => {
  it('Given objects holding env, headers and payloads, when logged, then their values are censored', () => {
    const lines: string[] = [];
    const log = createDaemonLogger((line) => lines.push(line));

    log.info(
      {
        event: 'x',
        env: { TOKEN: 'secret-1' },
        job: {
          target: { env: { KEY: 'secret-2' }, headers: { Authorization: 'secret-3' } },
          payload: { password: 'secret-4' },
        },
      },
      'msg',
    );

    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/secret-/);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', event: 'x', env: '[redacted]', msg: 'msg' });
  });

  it('Given scheduler events, when they happen, then each is one JSON line with its job and run ids', () => {
    const lines: string[] = [];
    const events = new DaemonEvents();
    logDaemonEvents(events, (line) => lines.push(line));

    events.emit('run:fired', {
      id: 'run-1',
      jobId: 'job-1',
      jobName: 'nightly',
      scheduledFor: 5,
      attempt: 1,
      trigger: 'schedule',
    } as never);
    events.emit('run:dead', {
      id: 'run-1',
      jobId: 'job-1',
      attempt: 3,
      error: 'exited with code 1',
    } as never);

    const [fired, dead] = lines.map((line) => JSON.parse(line));
    expect(fired).toMatchObject({
      level: 'info',
      event: 'run:fired',
      runId: 'run-1',
      jobId: 'job-1',
      scheduledFor: 5,
    });
    expect(dead).toMatchObject({ level: 'error', event: 'run:dead', runId: 'run-1', attempt: 3 });
    expect(typeof fired.time).toBe('string');
  });
});

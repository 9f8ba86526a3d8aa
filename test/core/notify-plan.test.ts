import { describe, expect, it } from 'vitest';
import { isSchedError } from '../../src/core/errors.js';
import { parseNotifyOn } from '../../src/core/notify/normalize-alerts.js';
import { describeTarget, parseNotifyTarget } from '../../src/core/notify/notify-target.js';
import { resolveAlerts, runDeliveries, runEvents, throttleWindow } from '../../src/core/notify/plan.js';

describe('notification plan', () => {
  it('Given a failed attempt that is retried, then it is a failure only; the last one is also dead', () => {
    expect(runEvents({ outcome: 'failed', retrying: true, previousFailed: false })).toEqual(['failure']);
    expect(runEvents({ outcome: 'timed_out', retrying: false, previousFailed: false })).toEqual([
      'failure',
      'dead',
    ]);
    expect(runEvents({ outcome: 'succeeded', retrying: false, previousFailed: true })).toEqual([
      'success',
      'recovered',
    ]);
    expect(runEvents({ outcome: 'cancelled', retrying: false, previousFailed: false })).toEqual([]);
  });

  it('Given a job without its own targets, when a run dies, then the config targets get one delivery each, keyed by run, event and target', () => {
    let id = 0;
    const deliveries = runDeliveries(
      { id: 'job-1', alerts: undefined },
      { runId: 'run-1', outcome: 'failed', retrying: false, previousFailed: false },
      { targets: ['https://a.example/h', 'mailto:ops@example.com'], on: null },
      1_000,
      () => `d${++id}`,
    );
    expect(deliveries.map((row) => row.dedupKey)).toEqual([
      'dead:run-1:https://a.example/h',
      'dead:run-1:mailto:ops@example.com',
    ]);
  });

  it('Given a job with a dead-man’s switch and no events of its own, then it hears of overdue too', () => {
    const alerts = { notify: ['https://a.example/h'], notifyOn: null, expectSuccessEveryMs: 60_000 };
    expect(resolveAlerts({ alerts }, { targets: [], on: null }).on).toEqual(['dead', 'recovered', 'overdue']);
    expect(resolveAlerts({ alerts }, { targets: [], on: ['dead'] }).on).toEqual(['dead']);
  });

  it('Given a window of 10s, then an instant falls in the window that starts at its 10s boundary', () => {
    expect(throttleWindow(25_000, { maxPerWindow: 1, windowMs: 10_000 })).toEqual({
      start: 20_000,
      end: 30_000,
    });
  });
});

describe('notification targets and events as typed', () => {
  it('Given the target kinds, then each URL is read as its kind', () => {
    expect(parseNotifyTarget('https://hooks.slack.com/services/T/B/x').kind).toBe('slack');
    expect(parseNotifyTarget('slack+https://chat.example/hook').kind).toBe('slack');
    expect(parseNotifyTarget('teams+https://x.example/hook').kind).toBe('teams');
    expect(parseNotifyTarget('mailto:ops@example.com')).toEqual({ kind: 'email', to: 'ops@example.com' });
    expect(parseNotifyTarget('http://127.0.0.1:9/h').kind).toBe('webhook');
  });

  it('Given a hook URL with a token in its path, when it is shown, then only its scheme and host are', () => {
    expect(describeTarget('slack+https://hooks.slack.com/services/T/B/secret')).toBe(
      'slack+https://hooks.slack.com/…',
    );
  });

  it.each([['ftp://example.com/x'], ['mailto:nobody'], ['not a url']])(
    'Given the target %s, then it is refused with a hint',
    (text) => {
      try {
        parseNotifyTarget(text);
        expect.unreachable();
      } catch (error) {
        expect(isSchedError(error) && error.code === 'VALIDATION_FAILED' && error.hint).toBeTruthy();
      }
    },
  );

  it('Given a comma list with an unknown event, then it is refused and names it', () => {
    expect(parseNotifyOn('dead, Recovered')).toEqual(['dead', 'recovered']);
    expect(() => parseNotifyOn('dead,sometimes')).toThrow(/"sometimes"/);
  });
});

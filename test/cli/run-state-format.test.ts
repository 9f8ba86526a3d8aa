import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import {
  describeExit,
  describeRunState,
  renderResponseHeaders,
  renderRunHeadline,
} from '../../src/cli/format/run-detail.js';
import { renderRunTable } from '../../src/cli/format/run-list.js';
import type { RunSummary } from '../../src/core/run.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const plain = new Chalk({ level: 0 });
const run: RunSummary = {
  id: 'run-1',
  jobId: 'job-1',
  jobName: 'sync',
  scheduledFor: NOW - 60_000,
  attempt: 1,
  trigger: 'schedule',
  state: 'failed',
  node: 'host',
  fence: 1,
  createdAt: NOW - 60_000,
  startedAt: NOW - 60_000,
  finishedAt: NOW - 59_000,
  pid: null,
  exitCode: null,
  httpStatus: 503,
  signal: null,
  error: 'expected 2xx, got 503',
  retriedBy: null,
  dueAt: NOW - 60_000,
};

describe('describeRunState', () => {
  it('given a failed run a later attempt took over, says retried', () => {
    expect(describeRunState({ ...run, retriedBy: 'run-2' }, NOW, plain)).toBe('failed → retried');
  });

  it.each(['failed', 'timed_out', 'lost'] as const)(
    'given a %s run no attempt followed, says dead',
    (state) => {
      expect(describeRunState({ ...run, state }, NOW, plain)).toBe(`${state} (dead)`);
    },
  );

  it('given a cancelled run, says only cancelled: a kill is not a failure to retry', () => {
    expect(describeRunState({ ...run, state: 'cancelled' }, NOW, plain)).toBe('cancelled');
  });

  it('given a retry waiting out its backoff, says when it is due', () => {
    expect(
      describeRunState({ ...run, state: 'scheduled', attempt: 2, dueAt: NOW + 20_000 }, NOW, plain),
    ).toBe('scheduled (due in 20s)');
  });

  it('given a succeeded run, says succeeded', () => {
    expect(describeRunState({ ...run, state: 'succeeded' }, NOW, plain)).toBe('succeeded');
  });
});

describe('describeExit', () => {
  it('given an HTTP run, shows the response status', () => {
    expect(describeExit(run)).toBe('HTTP 503');
  });

  it('given a command run, shows the exit code', () => {
    expect(describeExit({ ...run, httpStatus: null, exitCode: 2 })).toBe('exit 2');
  });
});

describe('renderRunHeadline', () => {
  it('given a dead HTTP run, shows the state marker, status and error', () => {
    expect(renderRunHeadline(run, NOW, plain)).toBe(
      'Run run-1 of sync, attempt 1 on host: failed (dead), HTTP 503, took 1s (error: expected 2xx, got 503)',
    );
  });
});

describe('renderResponseHeaders', () => {
  it('writes one header a line, as curl -i does', () => {
    expect(renderResponseHeaders({ 'content-type': 'application/json', 'retry-after': '30' })).toBe(
      'content-type: application/json\nretry-after: 30',
    );
  });
});

describe('renderRunTable', () => {
  const viewer = { now: NOW, zone: 'UTC' };

  it('adds a NODE column when the runs ran on more than one node, and leaves it out otherwise', () => {
    const alone = renderRunTable([run, { ...run, id: 'run-2' }], viewer);
    expect(alone).not.toContain('NODE');
    const spread = renderRunTable([run, { ...run, id: 'run-2', node: 'db-1' }], viewer);
    expect(spread.split('\n')[0]).toMatch(/EXIT\s+NODE$/);
    expect(spread).toMatch(/run-2 .* db-1$/m);
  });
});

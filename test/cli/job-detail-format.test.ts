import { describe, expect, it } from 'vitest';
import { describeBreaker, describeExpect, httpTargetFields } from '../../src/cli/format/http-target.js';
import { renderJobDetail } from '../../src/cli/format/job-detail.js';
import { describeRetryPolicy } from '../../src/cli/format/retry-policy.js';
import {
  DEFAULT_RETRY_POLICY,
  DEFAULT_TIME_POLICY,
  DEFAULT_PLACEMENT,
  type HttpTarget,
  type Job,
} from '../../src/core/job.js';
import type { BreakerStatus, JobDetail } from '../../src/ipc/protocol.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const viewer = { zone: 'UTC', now: NOW };
const target: HttpTarget = {
  kind: 'http',
  method: 'POST',
  url: 'https://api.example.com/sync',
  headers: { Authorization: 'Bearer s3cret', 'X-Team': 'ops' },
  expect: { kind: 'codes', codes: [200, 204] },
  breaker: { failureThreshold: 5, cooldownMs: 30_000 },
};
const job: Job = {
  id: 'job-1',
  name: 'sync',
  description: null,
  schedule: { kind: 'cron', expression: '0 * * * *' },
  timezone: 'UTC',
  target,
  payload: { full: false },
  timeoutMs: null,
  labels: {},
  retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 3 },
  policy: DEFAULT_TIME_POLICY,
  after: [],
  afterAll: [],
  placement: DEFAULT_PLACEMENT,
  state: 'active',
  version: 1,
  owner: 'alice',
  createdAt: NOW,
  updatedAt: NOW,
  deletedAt: null,
  nextRunAt: null,
};
const openBreaker: BreakerStatus = {
  origin: 'https://api.example.com',
  state: 'open',
  consecutiveFailures: 5,
  openedAt: NOW - 10_000,
  retryAt: NOW + 20_000,
};

describe('describeRetryPolicy', () => {
  it('given no retries, says so', () => {
    expect(describeRetryPolicy(DEFAULT_RETRY_POLICY)).toBe('no retries');
  });

  it('given the default backoff, shows the count, growth, cap and jitter', () => {
    expect(describeRetryPolicy({ ...DEFAULT_RETRY_POLICY, maxRetries: 3 })).toBe(
      '3 retries, backoff 10s ×2 up to 1h, full jitter',
    );
  });

  it('given one retry at a constant delay without jitter, says "each time" and "no jitter"', () => {
    expect(
      describeRetryPolicy({
        ...DEFAULT_RETRY_POLICY,
        maxRetries: 1,
        factor: 1,
        initialBackoffMs: 60_000,
        jitter: false,
      }),
    ).toBe('1 retry, backoff 1m each time, no jitter');
  });

  it('given a fractional factor, shows it as is', () => {
    expect(describeRetryPolicy({ ...DEFAULT_RETRY_POLICY, maxRetries: 2, factor: 1.5 })).toBe(
      '2 retries, backoff 10s ×1.5 up to 1h, full jitter',
    );
  });

  it('given no delay, says the retries follow at once', () => {
    expect(describeRetryPolicy({ ...DEFAULT_RETRY_POLICY, maxRetries: 2, initialBackoffMs: 0 })).toBe(
      '2 retries, at once',
    );
  });
});

describe('describeBreaker', () => {
  it('given no record, says closed', () => {
    expect(describeBreaker(null, viewer)).toBe('closed');
  });

  it('given a closed breaker with some failures, counts them', () => {
    expect(
      describeBreaker(
        { ...openBreaker, state: 'closed', openedAt: null, retryAt: null, consecutiveFailures: 2 },
        viewer,
      ),
    ).toBe('closed (2 failures in a row)');
  });

  it('given an open breaker, says since when and when it goes half-open', () => {
    expect(describeBreaker(openBreaker, viewer)).toBe(
      'open since 2026-06-01 11:59:50 UTC (half-open at 2026-06-01 12:00:20 UTC, in 20s)',
    );
  });

  it('given a half-open breaker, says half-open', () => {
    expect(describeBreaker({ ...openBreaker, state: 'half_open', retryAt: null }, viewer)).toMatch(
      /^half-open/,
    );
  });
});

describe('describeExpect', () => {
  it('writes a class as 2xx and codes as a list', () => {
    expect(describeExpect({ kind: 'class', hundreds: 2 })).toBe('2xx');
    expect(describeExpect({ kind: 'codes', codes: [200, 204] })).toBe('200, 204');
  });
});

describe('renderJobDetail for an HTTP job', () => {
  const detail: JobDetail = { job, upcoming: [], recentRuns: [], breaker: openBreaker };
  const rendered = renderJobDetail(detail, viewer, () => 'every hour');
  const plain = rendered.replace(new RegExp(String.raw`\u001b\[[0-9;]*m`, 'g'), '');

  it('shows the request, header names, expected statuses, breaker and retry policy', () => {
    expect(plain).toMatch(/^Request: +POST https:\/\/api\.example\.com\/sync$/m);
    expect(plain).toMatch(/^Headers: +Authorization, X-Team$/m);
    expect(plain).toMatch(/^Expect: +200, 204$/m);
    expect(plain).toMatch(/^Breaker: +open since .* \(half-open at 2026-06-01 12:00:20 UTC, in 20s\)$/m);
    expect(plain).toMatch(/^Breaker opens: +after 5 failures in a row, for 30s$/m);
    expect(plain).toMatch(/^Retries: +3 retries, backoff 10s ×2 up to 1h, full jitter$/m);
    expect(plain).toMatch(/^Payload: +14 bytes of JSON, sent as the request body$/m);
  });

  it('never shows a header value, which may be a secret', () => {
    expect(plain).not.toContain('s3cret');
  });

  it('shows no command rows', () => {
    expect(plain).not.toMatch(/^(Command|Working dir|Env):/m);
  });

  it('given a command job, shows the command rows and no HTTP rows', () => {
    const commandJob: Job = {
      ...job,
      payload: null,
      target: { kind: 'command', argv: ['./sync.sh'], shell: null, cwd: null, env: { TOKEN: 'x' } },
    };
    const text = renderJobDetail({ ...detail, job: commandJob, breaker: null }, viewer, () => 'every hour');
    expect(text).toMatch(/^Command: +\.\/sync\.sh$/m);
    expect(text).toMatch(/^Env: +TOKEN$/m);
    expect(text).not.toMatch(/^(Request|Breaker):/m);
  });
});

describe('renderJobDetail, whom a command job runs as', () => {
  const commandJob: Job = {
    ...job,
    payload: null,
    target: { kind: 'command', argv: ['./sync.sh'], shell: null, cwd: null, env: {} },
  };
  const render = (runsAs: JobDetail['runsAs']): string =>
    renderJobDetail(
      { job: commandJob, upcoming: [], recentRuns: [], breaker: null, runsAs },
      viewer,
      () => 'every hour',
    );

  it('given the user it runs as, names them with their uid', () => {
    expect(render({ user: 'ada', uid: 1001, refused: null })).toMatch(/^Runs as: +ada \(uid 1001\)$/m);
  });

  it('given a daemon that cannot start it, says its runs fail and why', () => {
    expect(render({ user: 'ada', uid: null, refused: 'no user named ada on this host' })).toMatch(
      /^Runs as: +no one, its runs fail: no user named ada on this host$/m,
    );
  });

  it('given no answer (an HTTP job, or a read from the local copy), shows no such row', () => {
    expect(render(null)).not.toMatch(/^Runs as:/m);
    expect(render(undefined)).not.toMatch(/^Runs as:/m);
  });
});

describe('httpTargetFields', () => {
  it('given a target without headers, shows a dash', () => {
    const rows = httpTargetFields({ ...target, headers: {} }, null, viewer);
    expect(rows).toContainEqual(['Headers', '-']);
  });

  it('given a threshold of 1, says "after 1 failure"', () => {
    const rows = httpTargetFields(
      { ...target, breaker: { failureThreshold: 1, cooldownMs: 60_000 } },
      null,
      viewer,
    );
    expect(rows).toContainEqual(['Breaker opens', 'after 1 failure, for 1m']);
  });
});

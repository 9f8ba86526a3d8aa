import type { JobDefinition, JobInput } from '../job.js';

/**
 * The request that re-creates a stored definition (`sched import json`). Every value is written so that
 * normalizing it gives back the same value: durations in exact milliseconds, instants in UTC, the payload
 * as JSON, an `every` job's anchor as an ISO instant.
 */
export function definitionToInput(definition: JobDefinition): JobInput {
  const { schedule, target, retry } = definition;
  const input: JobInput = {
    name: definition.name,
    timezone: definition.timezone,
    labels: { ...definition.labels },
    retries: retry.maxRetries,
    backoff: `${retry.initialBackoffMs}ms`,
    backoffFactor: retry.factor,
    backoffMax: `${retry.maxBackoffMs}ms`,
    jitter: retry.jitter,
  };
  if (retry.backoffType !== undefined) input.backoffType = retry.backoffType;
  if (retry.retryOn !== undefined) input.retryOn = retry.retryOn.join(',');
  if (retry.noRetryOn !== undefined) input.noRetryOn = retry.noRetryOn.join(',');
  if (retry.deadlineMs !== undefined) input.retryDeadline = `${retry.deadlineMs}ms`;
  if (definition.description !== null) input.description = definition.description;
  if (definition.payload !== null) input.payload = JSON.stringify(definition.payload);
  if (definition.timeoutMs !== null) input.timeout = `${definition.timeoutMs}ms`;
  if (schedule.kind === 'cron') input.cron = schedule.expression;
  else if (schedule.kind === 'at') input.at = new Date(schedule.at).toISOString();
  else if (schedule.kind === 'every') {
    input.every = `${schedule.intervalMs}ms`;
    input.everyAnchor = new Date(schedule.anchorMs).toISOString();
  }
  if (target.kind === 'command') {
    if (target.argv !== null) input.argv = [...target.argv];
    if (target.shell !== null) input.shell = target.shell;
    if (target.cwd !== null) input.cwd = target.cwd;
    input.env = { ...target.env };
  } else {
    input.http = target.url;
    input.method = target.method;
    input.headers = Object.entries(target.headers).map(([name, value]) => `${name}: ${value}`);
    input.expect =
      target.expect.kind === 'class' ? `${target.expect.hundreds}xx` : target.expect.codes.join(',');
    input.breakerFailures = target.breaker.failureThreshold;
    input.breakerCooldown = `${target.breaker.cooldownMs}ms`;
  }
  return input;
}

/** Whether two definitions are the same job. */
export function sameDefinition(a: JobDefinition, b: JobDefinition): boolean {
  return stableJson(a) === stableJson(b);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

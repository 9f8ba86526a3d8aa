import { canonicalJson } from '../../core/idempotency.js';
import type { AuditRecord } from '../../ipc/protocol.js';
import { renderTable } from './table.js';
import { formatInstant, type Viewer } from './time.js';

/** Bookkeeping that changes with every write; listing it would bury what the user changed. */
const BOOKKEEPING = new Set(['version', 'createdAt', 'updatedAt', 'deletedAt', 'nextRunAt']);
/** Values that may be secrets are never shown, only that they changed (as `sched show` shows env names only). */
const SECRET_PATHS = ['payload', 'target.env', 'target.headers'];
const MAX_VALUE_LENGTH = 40;
const MAX_CHANGE_LENGTH = 100;

export function renderAuditTable(records: readonly AuditRecord[], viewer: Viewer): string {
  const rows = records.map((record) => [
    formatInstant(record.at, viewer.zone),
    record.actor,
    record.action,
    auditJobLabel(record),
    truncate(summarizeChange(record.before, record.after), MAX_CHANGE_LENGTH),
  ]);
  return renderTable(
    [{ header: 'TIME' }, { header: 'ACTOR' }, { header: 'ACTION' }, { header: 'JOB' }, { header: 'CHANGE' }],
    rows,
  );
}

/** The job's name when the entry holds the job (or names it, as run entries may), else its id. */
export function auditJobLabel(record: AuditRecord): string {
  const name =
    nameOf(record.after) ?? nameOf(record.before) ?? jobNameOf(record.after) ?? jobNameOf(record.before);
  return name ?? record.jobId ?? '-';
}

/**
 * Which fields differ between before and after, one level into nested objects (`schedule.expression`,
 * `retry.maxRetries`): `state: active → paused, retry.maxRetries: 0 → 3, target.headers`. Short plain
 * values are shown; secrets and long values only by name.
 */
export function summarizeChange(before: unknown, after: unknown): string {
  if (before === null || before === undefined) {
    if (nameOf(after) !== undefined) return 'created';
    return isRecord(after) ? describeFields(after) : '-';
  }
  if (after === null || after === undefined) return 'removed';
  if (!isRecord(before) || !isRecord(after))
    return sameJson(before, after) ? 'no change' : describeValue('', before, after);
  const changes = diff(before, after, '');
  return changes.length === 0 ? 'no change' : changes.join(', ');
}

function diff(before: Record<string, unknown>, after: Record<string, unknown>, prefix: string): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changes: string[] = [];
  for (const key of keys) {
    if (prefix === '' && BOOKKEEPING.has(key)) continue;
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const [old, now] = [before[key], after[key]];
    if (sameJson(old, now)) continue;
    if (prefix === '' && isRecord(old) && isRecord(now) && !isSecret(path)) {
      const nested = diff(old, now, path);
      // A change of kind (a command becoming an HTTP call) reads better as one word than as every field.
      changes.push(...(nested.some((change) => change.startsWith(`${path}.kind`)) ? [path] : nested));
    } else {
      changes.push(describeValue(path, old, now));
    }
  }
  return changes;
}

function describeValue(path: string, old: unknown, now: unknown): string {
  if (isSecret(path) || !isShown(old) || !isShown(now)) return path;
  return `${path}: ${show(old)} → ${show(now)}`;
}

function describeFields(record: Record<string, unknown>): string {
  return Object.entries(record)
    .filter(([, value]) => value !== null && isShown(value))
    .map(([key, value]) => `${key}=${show(value)}`)
    .join(' ');
}

function isShown(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.length <= MAX_VALUE_LENGTH;
  return typeof value === 'number' || typeof value === 'boolean';
}

function show(value: unknown): string {
  return value === undefined || value === null ? '-' : String(value);
}

function isSecret(path: string): boolean {
  return SECRET_PATHS.some((secret) => path === secret || path.startsWith(`${secret}.`));
}

function nameOf(value: unknown): string | undefined {
  return isRecord(value) && typeof value.name === 'string' ? value.name : undefined;
}

function jobNameOf(value: unknown): string | undefined {
  return isRecord(value) && typeof value.jobName === 'string' ? value.jobName : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Key order carries no meaning: labels written in another order are the same labels.
function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

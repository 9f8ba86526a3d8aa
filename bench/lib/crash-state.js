import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ChildJournal } from '../../dist/daemon/orphans/child-journal.js';
import { readProcStat } from '../../dist/daemon/orphans/process-table.js';

/**
 * What the crash-cycles benchmark reads behind the daemon's back: its database (read-only; in WAL mode
 * a reader never blocks the daemon) and /proc. Nothing here signals or writes anything.
 */

export function openReadOnly(databasePath) {
  return new Database(databasePath, { readonly: true, fileMustExist: true });
}

/** What a killed daemon left: the runs its database says are running, and the children its journal still lists. */
export function readKilledState(databasePath, home) {
  const db = openReadOnly(databasePath);
  try {
    const running = db.prepare(`SELECT id FROM runs WHERE state = 'running'`).pluck().all();
    return { running, journaled: new ChildJournal(path.join(home, 'children')).read() };
  } finally {
    db.close();
  }
}

/** The database-side checks after a restart, as `[kind, evidence]` pairs. */
export function checkDatabase(databasePath, { acknowledged, killedRunning }) {
  const db = openReadOnly(databasePath);
  const violations = [];
  try {
    const integrity = db.prepare('PRAGMA integrity_check').pluck().all();
    if (integrity.length !== 1 || integrity[0] !== 'ok')
      violations.push(['integrity', { integrityCheck: integrity.slice(0, 10) }]);

    const jobIds = new Set(db.prepare('SELECT id FROM jobs').pluck().all());
    for (const [key, jobId] of acknowledged)
      if (!jobIds.has(jobId)) violations.push(['acknowledged job missing', { idempotencyKey: key, jobId }]);

    const stateOf = db.prepare('SELECT state, node, fence, started_at AS startedAt FROM runs WHERE id = ?');
    for (const runId of killedRunning) {
      const run = stateOf.get(runId);
      if (run?.state === 'running') violations.push(['run left running', { runId, ...run }]);
    }

    const duplicates = db
      .prepare(
        `SELECT job_id AS jobId, scheduled_for AS scheduledFor, attempt, COUNT(*) AS runs, GROUP_CONCAT(id) AS runIds
           FROM runs GROUP BY job_id, scheduled_for, attempt HAVING COUNT(*) > 1`,
      )
      .all();
    for (const duplicate of duplicates) violations.push(['duplicate run', duplicate]);
  } finally {
    db.close();
  }
  return violations;
}

/** The live jobs of that name, with their ids (at most one, since live names are unique). */
export function jobsNamed(databasePath, name) {
  const db = openReadOnly(databasePath);
  try {
    return db.prepare('SELECT id FROM jobs WHERE name = ? AND deleted_at IS NULL').pluck().all(name);
  } finally {
    db.close();
  }
}

/**
 * Command children started from `home` (SCHED_HOME and SCHED_RUN_ID in their environment), alive now
 * (zombies excepted) and not descended from the daemon `livePid`: what killed daemons left running, as
 * `{ pid, comm, runId, fence, parentPid }`. Not by SCHED_FENCE: a retry fired by a killed daemon keeps its
 * fence when the next one starts it. Only our own processes' environments are readable, which is all a
 * daemon we started can have spawned.
 */
export function orphansOf(home, livePid) {
  const orphans = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const environment = readEnvironment(entry);
    if (environment?.SCHED_HOME !== home || environment.SCHED_RUN_ID === undefined) continue;
    const stat = readProcStat(Number(entry));
    if (stat === null || stat.state === 'Z' || descendsFrom(Number(entry), livePid)) continue;
    orphans.push({
      pid: stat.pid,
      comm: stat.comm,
      runId: environment.SCHED_RUN_ID,
      fence: Number(environment.SCHED_FENCE),
      parentPid: parentPid(stat.pid),
    });
  }
  return orphans;
}

function descendsFrom(pid, ancestor) {
  for (let current = pid, hops = 0; current > 1 && hops < 64; hops++) {
    current = parentPid(current);
    if (current === ancestor) return true;
  }
  return false;
}

function parentPid(pid) {
  try {
    return Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** True while the journaled process (same pid, same start time) is alive and not a zombie. */
export function isJournaledAlive({ pid, startTime }) {
  const stat = readProcStat(pid);
  return stat !== null && stat.state !== 'Z' && stat.startTime === startTime;
}

function readEnvironment(pid) {
  try {
    const environment = {};
    for (const variable of fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')) {
      const equals = variable.indexOf('=');
      if (equals > 0) environment[variable.slice(0, equals)] = variable.slice(equals + 1);
    }
    return environment;
  } catch {
    return null;
  }
}

import fs from 'node:fs';
import os from 'node:os';

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** The numeric fields of /proc/<pid>/stat after the command name, so index 0 is field 3 (state). */
function statFields(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds (user + system, all threads) a process has used so far; NaN where /proc is missing. */
export function cpuSeconds(pid) {
  try {
    const fields = statFields(pid);
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** Starts a CPU meter on a process: `stop(wallMs)` gives its CPU use in % of one core over that time. */
export function cpuMeter(pid) {
  const before = cpuSeconds(pid);
  return { stop: (wallMs) => ((cpuSeconds(pid) - before) / (wallMs / 1000)) * 100 };
}

/** CPU seconds used by this process's children (and theirs) that have exited and been waited for. */
function reapedChildrenCpuSeconds() {
  const fields = statFields(process.pid);
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_SECOND;
}

/** CPU seconds every core of the machine spent busy (not idle or waiting on I/O) since boot. */
function machineBusySeconds() {
  const [, ...ticks] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS_PER_SECOND;
}

/**
 * Around a child process that runs to completion: how busy the machine was, and how much of that was
 * neither us nor our descendants (other work on a shared machine is noise in every figure).
 */
export function machineLoadMeter() {
  try {
    const busyBefore = machineBusySeconds();
    const oursBefore = reapedChildrenCpuSeconds() + cpuSeconds(process.pid);
    const started = Date.now();
    return {
      stop() {
        const wallSeconds = (Date.now() - started) / 1000;
        const capacity = wallSeconds * os.cpus().length;
        const busy = machineBusySeconds() - busyBefore;
        const ours = reapedChildrenCpuSeconds() + cpuSeconds(process.pid) - oursBefore;
        return {
          machineBusyPct: (busy / capacity) * 100,
          otherProcessesPct: (Math.max(0, busy - ours) / capacity) * 100,
        };
      },
    };
  } catch {
    return { stop: () => ({ machineBusyPct: NaN, otherProcessesPct: NaN }) };
  }
}

import fs from 'node:fs';

/** A field of /proc/<pid>/status in MB (1 MB = 2^20 bytes): VmRSS now, VmHWM the peak so far. */
function statusMb(pid, field) {
  try {
    const match = fs
      .readFileSync(`/proc/${pid}/status`, 'utf8')
      .match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Resident memory of one process (not its children) in MB; NaN where /proc is missing. */
export const rssMb = (pid) => statusMb(pid, 'VmRSS');

/** The highest resident memory the process has had since it started, in MB. */
export const peakRssMb = (pid) => statusMb(pid, 'VmHWM');

/** Samples a process's RSS every `everyMs` until `stop()`, which gives the highest sample. */
export function rssSampler(pid, everyMs = 100) {
  let maxMb = rssMb(pid);
  const timer = setInterval(() => {
    const sample = rssMb(pid);
    if (sample > maxMb) maxMb = sample;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return maxMb;
    },
  };
}

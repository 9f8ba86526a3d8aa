/**
 * `--spread D`: a stable offset in [0, D) for each job, like Jenkins' `H` and systemd's `RandomizedOffsetSec`,
 * so that many jobs on the same schedule do not all start in the same second, yet each job keeps its own minute
 * from one day to the next and on every node.
 *
 * The hash is 32-bit FNV-1a over the UTF-8 bytes of the job id (offset basis 2166136261, prime 16777619),
 * followed by MurmurHash3's 32-bit finalizer (fmix32): FNV-1a alone leaves its high bits poorly mixed for ids
 * that differ only in their last characters (`job-1`, `job-2`), and the high bits are the ones that pick the
 * offset. The hash picks a fraction of the spread, floor(hash * D / 2^32), rather than hash mod D, so a job keeps
 * its relative place in the window when D changes.
 */
export function spreadOffsetMs(jobId: string, spreadMs: number): number {
  const span = Math.floor(spreadMs);
  if (!(span > 0)) return 0;
  return Math.floor((fmix32(fnv1a32(jobId)) / 2 ** 32) * span);
}

/** `--jitter D`: a fresh delay in [0, maxMs] for one instant. `random` returns a value in [0, 1). */
export function jitterMs(maxMs: number, random: () => number): number {
  const cap = Math.floor(maxMs);
  if (!(cap > 0)) return 0;
  // Clamped in case a random source returns exactly 1 (or a little off), which would step past the cap.
  return Math.min(cap, Math.max(0, Math.floor(random() * (cap + 1))));
}

/** When an instant actually starts: the instant, plus the job's spread offset, plus a jitter already drawn. */
export function plannedFireTime(instant: number, jobId: string, spreadMs: number, jitter: number): number {
  return instant + spreadOffsetMs(jobId, spreadMs) + Math.max(0, Math.floor(jitter));
}

/** 32-bit FNV-1a of the UTF-8 encoding of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const char of text) {
    for (const byte of utf8(char.codePointAt(0) ?? 0)) {
      hash = Math.imul(hash ^ byte, 0x01000193);
    }
  }
  return hash >>> 0;
}

/** MurmurHash3's finalizer: every input bit affects every output bit. */
function fmix32(value: number): number {
  let hash = value;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

function utf8(code: number): number[] {
  if (code < 0x80) return [code];
  if (code < 0x800) return [0xc0 | (code >> 6), 0x80 | (code & 0x3f)];
  if (code < 0x10000) return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
  return [
    0xf0 | (code >> 18),
    0x80 | ((code >> 12) & 0x3f),
    0x80 | ((code >> 6) & 0x3f),
    0x80 | (code & 0x3f),
  ];
}

/**
 * The `--jitter` delay of one instant: drawn from a hash of the job id and the instant rather than a live random
 * source, so it is random from one instant to the next yet the same on every node and after a restart; a
 * restarted daemon never plans an instant anew and fires it twice or early.
 */
export function instantJitterMs(jobId: string, instant: number, maxMs: number | null): number {
  if (maxMs === null) return 0;
  return jitterMs(maxMs, () => fmix32(fnv1a32(`${jobId}@${instant}`)) / 2 ** 32);
}

/** When a job's instant starts: the nominal instant plus its spread offset and that instant's jitter. */
export function plannedStart(
  job: { id: string; policy: { spreadMs: number | null; jitterMs: number | null } },
  instant: number,
): number {
  return plannedFireTime(
    instant,
    job.id,
    job.policy.spreadMs ?? 0,
    instantJitterMs(job.id, instant, job.policy.jitterMs),
  );
}

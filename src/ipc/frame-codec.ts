import { constants } from 'node:buffer';
import { SchedError } from '../core/errors.js';
import { FRAME_DELIMITER } from './frame-splitter.js';
import { nestsDeeperThan } from '../core/json-depth.js';

/** What one frame may hold: its size in bytes without the delimiter, and how deep its JSON nests. */
export interface FrameLimits {
  maxBytes: number;
  maxDepth: number;
}

/**
 * What the daemon reads from a client. A job's payload is at most 1 MiB, so any request fits in 2 MiB; a
 * payload travels as text, so requests nest only a few levels and 128 leaves ample room.
 */
export const REQUEST_LIMITS: FrameLimits = { maxBytes: 2 * 1024 * 1024, maxDepth: 128 };

/**
 * What a client reads from the daemon, which it trusts: a page of jobs can be large, so the only bound is
 * what one string can hold.
 */
export const REPLY_LIMITS: FrameLimits = { maxBytes: constants.MAX_STRING_LENGTH, maxDepth: Infinity };

/** node-ipc's `{ type, data }` message, kept around ours so the bytes on the wire stay as they were. */
const MESSAGE_TYPE = 'sched';
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export type DecodedFrame = { ok: true; message: unknown } | { ok: false; reason: string };

/** Reads one frame (without its delimiter) into the message it carries, or says why it cannot. */
export function decodeFrame(frame: Buffer, limits: FrameLimits): DecodedFrame {
  let text: string;
  try {
    text = strictUtf8.decode(frame);
  } catch {
    return { ok: false, reason: 'the frame is not valid UTF-8' };
  }
  if (limits.maxDepth !== Infinity && nestsDeeperThan(text, limits.maxDepth))
    return { ok: false, reason: `the frame nests more than ${limits.maxDepth} levels deep` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'the frame is not JSON' };
  }
  if (!isEnvelope(value))
    return { ok: false, reason: `the frame is not a {"type":"${MESSAGE_TYPE}"} message` };
  return { ok: true, message: value.data };
}

/**
 * Checked by hand rather than with a zod schema: every command loads this module to reach the daemon,
 * and loading zod would add a noticeable part of a command's start-up time.
 */
function isEnvelope(value: unknown): value is { type: typeof MESSAGE_TYPE; data: unknown } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.hasOwn(value, 'type') && (value as { type: unknown }).type === MESSAGE_TYPE;
}

/**
 * The bytes of one frame carrying `message`. A message the other side would refuse is refused here, with
 * an error the user can act on, instead of having the connection cut.
 */
export function encodeFrame(message: unknown, limits: FrameLimits): Buffer {
  let text: string;
  try {
    text = JSON.stringify({ type: MESSAGE_TYPE, data: message });
  } catch (error) {
    // Serialising recurses: a value nested thousands deep overflows the stack before any check could run.
    if (error instanceof RangeError && /call stack/i.test(error.message)) throw tooDeep(limits);
    throw error;
  }
  if (limits.maxDepth !== Infinity && nestsDeeperThan(text, limits.maxDepth)) throw tooDeep(limits);
  const bytes = Buffer.byteLength(text);
  if (bytes > limits.maxBytes) {
    throw new SchedError(
      'PAYLOAD_TOO_LARGE',
      `The request is ${bytes} bytes encoded; the daemon reads at most ${limits.maxBytes} bytes per request.`,
      {
        hint: 'Keep large data in a file and pass its path in the payload.',
        details: { bytes, limit: limits.maxBytes },
      },
    );
  }
  const frame = Buffer.allocUnsafe(bytes + 1);
  frame.write(text, 0, 'utf8');
  frame[bytes] = FRAME_DELIMITER;
  return frame;
}

function tooDeep(limits: FrameLimits): SchedError {
  return new SchedError(
    'VALIDATION_FAILED',
    `The request nests objects and arrays more than ${limits.maxDepth} levels deep; the daemon refuses it.`,
    { hint: 'Flatten the objects and arrays of the request.', details: { limit: limits.maxDepth } },
  );
}

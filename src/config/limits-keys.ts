import { z } from 'zod';
import { DEFAULT_RATE_LIMITS, RATE_VERBS, type RateVerb } from '../core/access/rate-limits.js';
import type { KeySpec } from './keys.js';

const MAX_PER_MINUTE = 1_000_000;

const perMinute = z
  .union([z.number().int().min(1).max(MAX_PER_MINUTE), z.literal(false), z.literal('off')])
  .transform((value) => (typeof value === 'number' ? value : null));

function limitKey(verb: RateVerb): KeySpec {
  const each = verb === 'trigger' ? ' of each job' : '';
  return {
    key: `limits.${verb}`,
    expects: `a whole number of requests a minute${each} from 1 to ${MAX_PER_MINUTE.toLocaleString('en')}, or "off"`,
    schema: perMinute,
    fromText: (text) => (/^\s*\d+\s*$/.test(text) ? Number(text) : text.trim()),
    default: () => DEFAULT_RATE_LIMITS.perMinute[verb],
  };
}

/**
 * `[limits]`: requests a minute per caller and verb (token buckets), and whether admins go unlimited
 * (by default they do, so the daemon's own user, always an admin, is never held back).
 */
export const LIMITS_KEYS: readonly KeySpec[] = [
  ...RATE_VERBS.map(limitKey),
  {
    key: 'limits.exempt_admins',
    expects: 'true or false',
    schema: z.boolean(),
    fromText: (text) => (text.trim() === 'true' ? true : text.trim() === 'false' ? false : text),
    default: () => DEFAULT_RATE_LIMITS.exemptAdmins,
  },
];

import { z } from 'zod';
import { commaList } from './comma-list.js';
import type { KeySpec } from './keys.js';

const MAX_SOCKET_MODE = 0o777;
const OWNER_READ_WRITE = 0o600;

/** `0660`, `660` or `0o660` (text, as TOML has no leading-zero integers), or a TOML octal integer. */
export function parseSocketMode(value: unknown): number | null {
  const mode =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^(0o?)?[0-7]{3,4}$/.test(value.trim())
        ? parseInt(value.trim().replace(/^0o/, ''), 8)
        : NaN;
  // The daemon's own user must keep reading and writing it, or its own `sched` could not connect.
  if (!Number.isInteger(mode) || mode < 0 || mode > MAX_SOCKET_MODE) return null;
  return (mode & OWNER_READ_WRITE) === OWNER_READ_WRITE ? mode : null;
}

const USER_OR_GROUP = /^@?[A-Za-z0-9_.][A-Za-z0-9_.-]*\$?$/;

function accessList(role: string): KeySpec {
  return {
    key: `access.${role}`,
    expects: 'a list of user names and @groups, such as ["alice", "@ops"]',
    schema: z.array(z.string().regex(USER_OR_GROUP)),
    fromText: commaList,
    default: () => [],
  };
}

/**
 * `[access]`: who may use the daemon beyond its own user and root (always admins), and `socket_mode` and
 * `socket_group`: who can reach its socket at all.
 */
export const ACCESS_KEYS: readonly KeySpec[] = [
  accessList('admins'),
  accessList('operators'),
  accessList('viewers'),
  {
    key: 'socket_mode',
    env: 'SCHED_SOCKET_MODE',
    expects: 'an octal file mode that keeps the owner read and write, such as "0600" or "0660"',
    schema: z
      .unknown()
      .refine((value) => parseSocketMode(value) !== null)
      .transform(parseSocketMode),
    fromText: (text) => text.trim(),
    default: () => 0o600,
  },
  {
    key: 'socket_group',
    env: 'SCHED_SOCKET_GROUP',
    expects: 'a group name or number, such as "sched"',
    schema: z.union([z.string().regex(/^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/), z.number().int().min(0)]),
    fromText: (text) => text.trim(),
    default: () => null,
  },
];

import path from 'node:path';
import { z } from 'zod';
import { parseDuration } from '../core/duration.js';
import { isSchedError } from '../core/errors.js';
import { parseNotifyOn } from '../core/notify/normalize-alerts.js';
import { parseNotifyTarget } from '../core/notify/notify-target.js';
import { assertTimezone, isValidTimezone } from '../core/schedule/timezone.js';
import { ACCESS_KEYS } from './access-keys.js';
import { API_KEYS } from './api-keys.js';
import { CLUSTER_KEYS } from './cluster-keys.js';
import { commaList } from './comma-list.js';
import { LIMITS_KEYS } from './limits-keys.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Retention {
  succeededDays: number;
  failedDays: number;
  maxRunsPerJob: number;
  auditDays: number;
  /** The event log behind `sched watch --since` and the relay between nodes. */
  eventDays: number;
}

export const DEFAULT_RETENTION: Readonly<Retention> = Object.freeze({
  succeededDays: 90,
  failedDays: 30,
  maxRunsPerJob: 1000,
  auditDays: 365,
  eventDays: 1,
});

/** Values that depend on the host (its zone, where its files live), computed at the edge. */
export interface HostDefaults {
  store: string;
  socket: string;
  timezone: string;
}

/**
 * One setting: its name in config.toml (dotted for tables), where else it may come from, what a valid
 * value looks like (said in words for error messages, checked by zod) and its default.
 */
export interface KeySpec {
  key: string;
  env?: string;
  flag?: string;
  /** Completes "… must be ___ (got …)". */
  expects: string;
  schema: z.ZodType;
  /** Environment variables and flags are text; this turns it into what the schema checks. */
  fromText: (text: string) => unknown;
  default: (host: HostDefaults) => unknown;
  /** A better hint than the generic one for a bad value, such as the zone that was probably meant. */
  hintFor?: (value: string) => string | undefined;
}

// A Unix socket path has to fit in sockaddr_un.sun_path (108 bytes on Linux, with the NUL).
const MAX_SOCKET_PATH_BYTES = 107;
const ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

const wholeNumber = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const asText = (text: string): unknown => text;
const asNumber = (text: string): unknown => (/^\s*-?\d+\s*$/.test(text) ? Number(text) : text);

export function isStoreUrl(text: string): boolean {
  if (/^sqlite:/.test(text)) return text.replace(/^sqlite:(\/\/)?/, '').length > 0;
  if (!/^postgres(ql)?:\/\//.test(text)) return false;
  try {
    return new URL(text).hostname !== '' || new URL(text).searchParams.has('host');
  } catch {
    return false;
  }
}

function isSocketPath(text: string): boolean {
  return path.isAbsolute(text) && Buffer.byteLength(text) <= MAX_SOCKET_PATH_BYTES;
}

function isOff(value: unknown): boolean {
  return value === false || (typeof value === 'string' && ['', 'off', 'none', 'false'].includes(value));
}

/** A setting that can be turned off: null when it is, else the text, which `isValid` must accept. */
function offOr(isValid: (text: string) => boolean): z.ZodType {
  return z
    .union([z.literal(false), z.string().refine((text) => isOff(text) || isValid(text))])
    .transform((value) => (isOff(value) ? null : value));
}

// Port 0 asks for any free port (the daemon logs the one it got), which tests use.
function isAddress(text: string): boolean {
  const port = ADDRESS.exec(text)?.[2];
  return port !== undefined && Number(port) <= 65_535;
}

function timezoneHint(value: string): string | undefined {
  try {
    assertTimezone(value.trim());
  } catch (error) {
    if (isSchedError(error)) return error.hint;
  }
  return undefined;
}

function retentionKey(key: string, unit: string, fallback: number): KeySpec {
  return {
    key: `retention.${key}`,
    expects: `a whole number of ${unit} ≥ 1`,
    schema: wholeNumber,
    fromText: asNumber,
    default: () => fallback,
  };
}

const MIN_BACKUP_EVERY_MS = 60_000;

/** The interval of `backup.every` in ms; null when the text is not a duration of at least a minute. */
export function backupEveryMs(text: string): number | null {
  try {
    const ms = parseDuration(text);
    return ms >= MIN_BACKUP_EVERY_MS ? ms : null;
  } catch {
    return null;
  }
}

/** `[backup]`: the daemon copies the store into `dir` every `every`, keeping the newest `keep`. */
const BACKUP_KEYS: readonly KeySpec[] = [
  {
    key: 'backup.dir',
    env: 'SCHED_BACKUP_DIR',
    expects: 'an absolute path of a folder, or "off"',
    schema: offOr(path.isAbsolute),
    fromText: (text) => text.trim(),
    default: () => null,
  },
  {
    key: 'backup.every',
    env: 'SCHED_BACKUP_EVERY',
    expects: 'a duration of at least 1m such as "6h" or "1d", or "off"',
    schema: offOr((text) => backupEveryMs(text) !== null),
    fromText: (text) => text.trim(),
    default: () => null,
  },
  {
    key: 'backup.keep',
    env: 'SCHED_BACKUP_KEEP',
    expects: 'a whole number of backups ≥ 1',
    schema: wholeNumber,
    fromText: asNumber,
    default: () => 7,
  },
];

function accepts(check: (text: string) => unknown): (text: string) => boolean {
  return (text) => {
    try {
      check(text);
      return true;
    } catch {
      return false;
    }
  };
}

const isSmtpUrl = (text: string) => /^smtps?:\/\/[^/]/.test(text);

/** `[notify]`: the targets and events of jobs that name none, and how messages are sent and throttled. */
const NOTIFY_KEYS: readonly KeySpec[] = [
  {
    key: 'notify.targets',
    env: 'SCHED_NOTIFY_TARGETS',
    expects: 'a list of notification URLs (http(s), slack+https, teams+https, mailto:)',
    schema: z.array(z.string().refine(accepts(parseNotifyTarget))),
    fromText: commaList,
    default: () => [],
  },
  {
    key: 'notify.on',
    expects: 'a comma list of failure, dead, recovered, success, overdue',
    schema: z.string().refine(accepts(parseNotifyOn)),
    fromText: asText,
    default: () => null,
  },
  {
    key: 'notify.webhook_secret_file',
    expects: 'the absolute path of a file holding the webhook signing secret',
    schema: z.string().refine((text) => path.isAbsolute(text)),
    fromText: asText,
    default: () => null,
  },
  {
    key: 'notify.smtp_url',
    env: 'SCHED_SMTP_URL',
    expects: 'an SMTP URL such as "smtp://user:password@mail.example.com:587" or "smtps://…"',
    schema: z.string().refine(isSmtpUrl),
    fromText: asText,
    default: () => null,
  },
  {
    key: 'notify.from',
    expects: 'an e-mail address',
    schema: z.string().regex(/^[^\s@]+@[^\s@]+$/),
    fromText: asText,
    default: () => 'sched@localhost',
  },
  {
    key: 'notify.max_per_window',
    expects: 'a whole number ≥ 1',
    schema: wholeNumber,
    fromText: asNumber,
    default: () => 5,
  },
  {
    key: 'notify.window',
    expects: 'a duration such as "1h" or "10m"',
    schema: z.string().refine(accepts((text) => parseDuration(text))),
    fromText: asText,
    default: () => '1h',
  },
];

function absoluteFileKey(key: string, env: string, what: string): KeySpec {
  return {
    key,
    env,
    expects: `the absolute path of ${what}`,
    schema: z.string().refine((text) => path.isAbsolute(text)),
    fromText: (text) => text.trim(),
    default: () => null,
  };
}

/** TLS to a PostgreSQL store: what the store URL's sslrootcert, sslcert and sslkey leave out. */
const POSTGRES_TLS_KEYS: readonly KeySpec[] = [
  {
    ...absoluteFileKey(
      'pg_ca_file',
      'SCHED_PG_CA_FILE',
      "the CA certificate (PEM) that signed the PostgreSQL server's",
    ),
    expects: `the absolute path of the CA certificate (PEM) that signed the PostgreSQL server's, or "system" for the host's CAs`,
    schema: z.string().refine((text) => path.isAbsolute(text) || text === 'system'),
  },
  absoluteFileKey(
    'pg_cert_file',
    'SCHED_PG_CERT_FILE',
    'the client certificate (PEM) sched shows PostgreSQL',
  ),
  absoluteFileKey(
    'pg_key_file',
    'SCHED_PG_KEY_FILE',
    "the client certificate's private key (PEM, mode 0600)",
  ),
];

/** A setting as `sched config show` prints it: the password of an SMTP URL is never shown; a mode in octal. */
export function shownValue(key: string, value: unknown): unknown {
  if (key === 'socket_mode' && typeof value === 'number') return `0${value.toString(8)}`;
  if (key !== 'notify.smtp_url' || typeof value !== 'string') return value;
  return value.replace(/^(smtps?:\/\/[^:/@]*):[^@/]*@/, '$1:***@');
}

/** Every setting sched reads from config.toml, the environment or flags. */
export const KEY_SPECS: readonly KeySpec[] = [
  {
    key: 'store',
    env: 'SCHED_STORE',
    flag: '--store',
    expects: 'a store URL such as "sqlite:/var/lib/sched/sched.db" or "postgres://host/db"',
    schema: z.string().refine(isStoreUrl),
    fromText: asText,
    default: (host) => host.store,
  },
  {
    key: 'socket',
    env: 'SCHED_SOCKET',
    flag: '--socket',
    expects: `an absolute path of at most ${MAX_SOCKET_PATH_BYTES} bytes`,
    schema: z.string().refine(isSocketPath),
    fromText: asText,
    default: (host) => host.socket,
  },
  {
    key: 'max_concurrent',
    env: 'SCHED_MAX_CONCURRENT',
    flag: '--max-concurrent',
    expects: 'a whole number ≥ 1',
    schema: wholeNumber,
    fromText: asNumber,
    default: () => null,
  },
  {
    key: 'max_children',
    env: 'SCHED_MAX_CHILDREN',
    flag: '--max-children',
    expects: 'a whole number ≥ 1',
    schema: wholeNumber,
    fromText: asNumber,
    default: () => null,
  },
  {
    key: 'timezone',
    env: 'SCHED_TZ',
    flag: '--tz',
    expects: 'an IANA time zone such as "Europe/Berlin" or "UTC"',
    schema: z.string().refine(isValidTimezone),
    fromText: (text) => text.trim(),
    default: (host) => host.timezone,
    hintFor: timezoneHint,
  },
  {
    key: 'log_level',
    env: 'SCHED_LOG_LEVEL',
    flag: '--log-level',
    expects: `one of ${LOG_LEVELS.join(', ')}`,
    schema: z.enum(LOG_LEVELS),
    fromText: (text) => text.trim().toLowerCase(),
    default: () => 'info',
  },
  {
    key: 'metrics_address',
    env: 'SCHED_METRICS_ADDRESS',
    flag: '--metrics',
    expects: 'host:port such as "127.0.0.1:9464", or "off"',
    schema: offOr(isAddress),
    fromText: (text) => text.trim(),
    default: () => null,
  },
  absoluteFileKey(
    'metrics_token_file',
    'SCHED_METRICS_TOKEN_FILE',
    'a file (mode 0600) holding the bearer token /metrics and /health ask for beyond loopback',
  ),
  {
    key: 'key_file',
    env: 'SCHED_KEY_FILE',
    expects: 'the absolute path of the secret key file (default: secret.key in the home)',
    schema: z.string().refine((text) => path.isAbsolute(text)),
    fromText: (text) => text.trim(),
    default: () => null,
  },
  retentionKey('succeeded_days', 'days', DEFAULT_RETENTION.succeededDays),
  retentionKey('failed_days', 'days', DEFAULT_RETENTION.failedDays),
  retentionKey('max_runs_per_job', 'runs', DEFAULT_RETENTION.maxRunsPerJob),
  retentionKey('audit_days', 'days', DEFAULT_RETENTION.auditDays),
  retentionKey('event_days', 'days', DEFAULT_RETENTION.eventDays),
  ...POSTGRES_TLS_KEYS,
  ...BACKUP_KEYS,
  ...NOTIFY_KEYS,
  ...ACCESS_KEYS,
  ...LIMITS_KEYS,
  ...API_KEYS,
  ...CLUSTER_KEYS,
];

export type ConfigKey =
  | 'store'
  | 'socket'
  | 'max_concurrent'
  | 'max_children'
  | 'timezone'
  | 'log_level'
  | 'metrics_address'
  | 'metrics_token_file'
  | 'key_file'
  | 'pg_ca_file'
  | 'pg_cert_file'
  | 'pg_key_file'
  | 'retention.succeeded_days'
  | 'retention.failed_days'
  | 'retention.max_runs_per_job'
  | 'retention.audit_days'
  | 'retention.event_days'
  | 'backup.dir'
  | 'backup.every'
  | 'backup.keep'
  | 'notify.targets'
  | 'notify.on'
  | 'notify.webhook_secret_file'
  | 'notify.smtp_url'
  | 'notify.from'
  | 'notify.max_per_window'
  | 'notify.window'
  | 'access.admins'
  | 'access.operators'
  | 'access.viewers'
  | 'socket_mode'
  | 'socket_group'
  | 'limits.create'
  | 'limits.update'
  | 'limits.delete'
  | 'limits.get'
  | 'limits.list'
  | 'limits.trigger'
  | 'limits.history'
  | 'limits.exempt_admins'
  | 'api.listen'
  | 'api.tls_cert_file'
  | 'api.tls_key_file'
  | 'api.allow_plain_http'
  | 'api.jwks_url'
  | 'api.issuer'
  | 'api.audience'
  | 'api.roles_claim'
  | 'api.owner_claim'
  | 'cluster.mode'
  | 'cluster.peers'
  | 'cluster.join'
  | 'cluster.bind'
  | 'cluster.advertise'
  | 'cluster.key_file';

/** The keys that a flag can set, by flag name without dashes (`max-concurrent`). */
export type FlagValues = Partial<Record<ConfigKey, string | undefined>>;

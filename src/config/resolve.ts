import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import { editDistance } from '../core/edit-distance.js';
import type { RateLimits } from '../core/access/rate-limits.js';
import type { ApiSettings } from '../core/api-listen.js';
import { SchedError } from '../core/errors.js';
import {
  backupEveryMs,
  KEY_SPECS,
  type ConfigKey,
  type FlagValues,
  type HostDefaults,
  type KeySpec,
  type LogLevel,
  type Retention,
} from './keys.js';

export type ConfigSource =
  | { kind: 'flag'; name: string }
  | { kind: 'env'; name: string }
  | { kind: 'file'; path: string }
  | { kind: 'default' };

/** The settings a daemon or client runs with, each traced to where it came from. Frozen. */
export interface ResolvedConfig {
  readonly store: string;
  readonly socket: string;
  /** At most this many runs at once; null means no limit. */
  readonly maxConcurrent: number | null;
  /** At most this many commands alive at once; null: as many as the open-file limit has room for. */
  readonly maxChildren: number | null;
  readonly timezone: string;
  readonly logLevel: LogLevel;
  /** host:port of the metrics and health listener; null when it is off. */
  readonly metricsAddress: string | null;
  /** The bearer token for the metrics and health listener beyond loopback is read from here. */
  readonly metricsTokenFile: string | null;
  /** The secret key file that seals env values, headers and payloads; null: secret.key in the home. */
  readonly keyFile: string | null;
  /** TLS to a PostgreSQL store, beside what its URL says (the URL wins where both say). */
  readonly postgresTls: Readonly<{ caFile: string | null; certFile: string | null; keyFile: string | null }>;
  readonly retention: Readonly<Retention>;
  /** Scheduled backups: taken only when both `dir` and `everyMs` are set. */
  readonly backup: Readonly<{ dir: string | null; everyMs: number | null; keep: number }>;
  /** `[notify]`: defaults for jobs that name no targets or events, and how messages go out. */
  readonly notify: Readonly<NotifyConfig>;
  /** `[access]`: user names and `@group`s by role, beyond the daemon's user and root (always admins). */
  readonly access: Readonly<{ admins: string[]; operators: string[]; viewers: string[] }>;
  /** The mode the daemon gives its socket, and the group it gives it to (null: the daemon's own). */
  readonly socketMode: number;
  readonly socketGroup: string | number | null;
  /** `[limits]`: requests a minute per caller and verb; admins exempt unless `exempt_admins = false`. */
  readonly limits: Readonly<RateLimits>;
  /** `[api]`: the HTTPS API's address (null: off), its certificate and key, and plain HTTP on loopback. */
  readonly api: Readonly<ApiSettings>;
  /** `[cluster]`: peer mode's voters, bind and advertised addresses and key file (mode `store`: none). */
  readonly cluster: Readonly<PeerConfig>;
  /** The config file that was read, if any. */
  readonly file: string | null;
  readonly values: Readonly<Record<ConfigKey, unknown>>;
  readonly sources: Readonly<Record<ConfigKey, ConfigSource>>;
}

export interface PeerConfig {
  mode: 'store' | 'peers';
  peers: string[];
  /** Members of a running cluster this node joins through (it starts as a learner); empty with `peers`. */
  join: string[];
  bind: string | null;
  advertise: string | null;
  keyFile: string | null;
}

export interface NotifyConfig {
  targets: string[];
  /** A comma list as written; null means dead and recovered. */
  on: string | null;
  /** Read by the daemon at start; the secret itself is never part of the config. */
  webhookSecretFile: string | null;
  smtpUrl: string | null;
  from: string;
  maxPerWindow: number;
  window: string;
}

export interface ConfigInputs {
  env: Readonly<Record<string, string | undefined>>;
  /** Raw flag text by config key; absent or undefined when the flag was not given. */
  flags: FlagValues;
  file: { path: string; text: string } | null;
  host: HostDefaults;
}

const CONFIG_HINT =
  'Fix the value, or remove it to use the default; `sched config show` lists every setting.';

/**
 * Precedence: flags > environment > config file > defaults. Each layer is checked with the same zod
 * schema per key, and an error names the key and where it came from. No I/O: the caller reads the file.
 */
export function resolveConfig(inputs: ConfigInputs): ResolvedConfig {
  const fileValues = inputs.file === null ? new Map<string, unknown>() : readFile(inputs.file);
  const values = {} as Record<ConfigKey, unknown>;
  const sources = {} as Record<ConfigKey, ConfigSource>;
  for (const spec of KEY_SPECS) {
    const key = spec.key as ConfigKey;
    const flagText = inputs.flags[key];
    const envText = spec.env === undefined ? undefined : inputs.env[spec.env];
    if (flagText !== undefined && spec.flag !== undefined) {
      values[key] = checkText(spec, flagText, spec.flag);
      sources[key] = { kind: 'flag', name: spec.flag };
    } else if (envText !== undefined && envText !== '' && spec.env !== undefined) {
      values[key] = checkText(spec, envText, spec.env);
      sources[key] = { kind: 'env', name: spec.env };
    } else if (fileValues.has(key) && inputs.file !== null) {
      values[key] = fileValues.get(key);
      sources[key] = { kind: 'file', path: inputs.file.path };
    } else {
      values[key] = spec.default(inputs.host);
      sources[key] = { kind: 'default' };
    }
  }
  return deepFreeze({
    store: values.store as string,
    socket: values.socket as string,
    maxConcurrent: values.max_concurrent as number | null,
    maxChildren: values.max_children as number | null,
    timezone: values.timezone as string,
    logLevel: values.log_level as LogLevel,
    metricsAddress: values.metrics_address as string | null,
    metricsTokenFile: values.metrics_token_file as string | null,
    keyFile: values.key_file as string | null,
    postgresTls: {
      caFile: values.pg_ca_file as string | null,
      certFile: values.pg_cert_file as string | null,
      keyFile: values.pg_key_file as string | null,
    },
    retention: {
      succeededDays: values['retention.succeeded_days'] as number,
      failedDays: values['retention.failed_days'] as number,
      maxRunsPerJob: values['retention.max_runs_per_job'] as number,
      auditDays: values['retention.audit_days'] as number,
      eventDays: values['retention.event_days'] as number,
    },
    backup: {
      dir: values['backup.dir'] as string | null,
      everyMs: values['backup.every'] === null ? null : backupEveryMs(values['backup.every'] as string),
      keep: values['backup.keep'] as number,
    },
    notify: {
      targets: values['notify.targets'] as string[],
      on: values['notify.on'] as string | null,
      webhookSecretFile: values['notify.webhook_secret_file'] as string | null,
      smtpUrl: values['notify.smtp_url'] as string | null,
      from: values['notify.from'] as string,
      maxPerWindow: values['notify.max_per_window'] as number,
      window: values['notify.window'] as string,
    },
    access: {
      admins: values['access.admins'] as string[],
      operators: values['access.operators'] as string[],
      viewers: values['access.viewers'] as string[],
    },
    socketMode: values.socket_mode as number,
    socketGroup: values.socket_group as string | number | null,
    limits: {
      perMinute: {
        create: values['limits.create'] as number | null,
        update: values['limits.update'] as number | null,
        delete: values['limits.delete'] as number | null,
        get: values['limits.get'] as number | null,
        list: values['limits.list'] as number | null,
        trigger: values['limits.trigger'] as number | null,
        history: values['limits.history'] as number | null,
      },
      exemptAdmins: values['limits.exempt_admins'] as boolean,
    },
    api: {
      listen: values['api.listen'] as string | null,
      tlsCertFile: values['api.tls_cert_file'] as string | null,
      tlsKeyFile: values['api.tls_key_file'] as string | null,
      allowPlainHttp: values['api.allow_plain_http'] as boolean,
      oidc: {
        jwksUrl: values['api.jwks_url'] as string | null,
        issuer: values['api.issuer'] as string | null,
        audience: values['api.audience'] as string | null,
        rolesClaim: values['api.roles_claim'] as string,
        ownerClaim: values['api.owner_claim'] as string,
      },
    },
    cluster: {
      mode: values['cluster.mode'] as 'store' | 'peers',
      peers: values['cluster.peers'] as string[],
      join: values['cluster.join'] as string[],
      bind: values['cluster.bind'] as string | null,
      advertise: values['cluster.advertise'] as string | null,
      keyFile: values['cluster.key_file'] as string | null,
    },
    file: inputs.file?.path ?? null,
    values,
    sources,
  });
}

function checkText(spec: KeySpec, text: string, origin: string): unknown {
  const result = spec.schema.safeParse(spec.fromText(text));
  if (result.success) return result.data;
  throw new SchedError(
    'VALIDATION_FAILED',
    `${origin} must be ${spec.expects} (got ${JSON.stringify(text)}).`,
    {
      hint:
        spec.hintFor?.(text) ??
        (origin.startsWith('--') ? `See the flag's help for its format.` : CONFIG_HINT),
      details: { key: spec.key, origin, value: text },
    },
  );
}

/** The document's shape: known keys only (a typo is an error, not a silently ignored line). */
function documentSchema(): z.ZodType {
  const top: Record<string, z.ZodType> = {};
  const tables: Record<string, Record<string, z.ZodType>> = {};
  for (const spec of KEY_SPECS) {
    const [first = '', second] = spec.key.split('.');
    if (second === undefined) top[first] = spec.schema.optional();
    else (tables[first] ??= {})[second] = spec.schema.optional();
  }
  for (const [name, shape] of Object.entries(tables)) top[name] = z.strictObject(shape).optional();
  return z.strictObject(top);
}

function readFile(file: { path: string; text: string }): Map<string, unknown> {
  let document: Record<string, unknown>;
  try {
    document = parseToml(file.text) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = error.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? 'invalid TOML';
    throw new SchedError(
      'VALIDATION_FAILED',
      `${file.path}: line ${error.line}, column ${error.column}: ${reason}.`,
      {
        hint: 'config.toml is TOML: key = value lines, strings in quotes, [retention] for retention settings.',
        details: { path: file.path, line: error.line, column: error.column },
      },
    );
  }
  const result = documentSchema().safeParse(document);
  if (!result.success) {
    const problems = result.error.issues.flatMap((issue) => describeIssue(issue, document));
    throw new SchedError('VALIDATION_FAILED', `${file.path}: ${problems.join('; ')}.`, {
      hint: CONFIG_HINT,
      details: { path: file.path, problems },
    });
  }
  const values = new Map<string, unknown>();
  const parsed = result.data as Record<string, unknown>;
  for (const spec of KEY_SPECS) {
    const value = lookup(parsed, spec.key.split('.'));
    if (value !== undefined) values.set(spec.key, value);
  }
  return values;
}

function describeIssue(issue: z.core.$ZodIssue, document: unknown): string[] {
  const prefix = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((name) => {
      const key = [...prefix, name].join('.');
      const near = closestKey(key);
      return `unknown key "${key}"${near === undefined ? '' : ` (did you mean "${near}"?)`}`;
    });
  }
  const key = prefix.join('.');
  // An issue inside a list setting has the item's index in its path: it is the setting's.
  const spec = KEY_SPECS.find((candidate) => key === candidate.key || key.startsWith(`${candidate.key}.`));
  const got = describeValue(lookup(document, prefix));
  if (spec === undefined) return [`"${key}" must be a table such as [${key}] (got ${got})`];
  return [`"${spec.key}" must be ${spec.expects} (got ${got})`];
}

function lookup(document: unknown, keyPath: readonly string[]): unknown {
  let value = document;
  for (const part of keyPath) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'a table';
  return String(value);
}

function closestKey(key: string): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const spec of KEY_SPECS) {
    const distance = editDistance(key, spec.key);
    if (distance <= 3 && (best === undefined || distance < best.distance)) best = { key: spec.key, distance };
  }
  return best?.key;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

import { Flags } from '@oclif/core';
import { LOG_LEVELS, type FlagValues } from './keys.js';

/**
 * The flags that override config.toml and the environment. They stay text here: the config resolver
 * checks them like every other layer, so a bad value is reported the same way wherever it came from.
 */
export const configFlags = {
  store: Flags.string({
    summary: 'Where jobs are kept: sqlite:PATH or a postgres:// URL (config: store, env: SCHED_STORE).',
    helpValue: 'URL',
  }),
  socket: Flags.string({
    summary: 'The Unix socket to listen on (config: socket, env: SCHED_SOCKET).',
    helpValue: 'PATH',
  }),
  'max-concurrent': Flags.string({
    summary: 'Run at most N jobs at once (config: max_concurrent, env: SCHED_MAX_CONCURRENT).',
    helpValue: 'N',
  }),
  'max-children': Flags.string({
    summary:
      'Keep at most N commands running at once; more wait for one to end. Default: as many as the open-file limit has room for, 5,000 at most (config: max_children, env: SCHED_MAX_CHILDREN).',
    helpValue: 'N',
  }),
  metrics: Flags.string({
    summary:
      'Serve /metrics and /health on host:port, or "off" (config: metrics_address, env: SCHED_METRICS_ADDRESS).',
    helpValue: 'ADDRESS',
  }),
  api: Flags.string({
    summary: 'Serve the HTTPS API on host:port, or "off" (config: [api] listen, env: SCHED_API_LISTEN).',
    helpValue: 'ADDRESS',
  }),
  'tls-cert': Flags.string({
    summary: 'The API’s TLS certificate, PEM (config: [api] tls_cert_file).',
    helpValue: 'FILE',
  }),
  'tls-key': Flags.string({
    summary: 'The API’s TLS private key, PEM (config: [api] tls_key_file).',
    helpValue: 'FILE',
  }),
  peers: Flags.string({
    summary:
      'Peer mode: start a new cluster of these voters, this node included, the same on each host; a node that has a log takes its voters from it (config: [cluster] peers).',
    helpValue: 'HOST:PORT,...',
    helpGroup: 'CLUSTER',
  }),
  join: Flags.string({
    summary:
      'Peer mode: join a running cluster through these members; the node follows the log and votes once `sched cluster join` adds it (config: [cluster] join).',
    helpValue: 'HOST:PORT,...',
    helpGroup: 'CLUSTER',
  }),
  bind: Flags.string({
    summary:
      'Peer mode: where this node listens for its peers, TCP and UDP on one port (config: [cluster] bind).',
    helpValue: 'HOST:PORT',
    helpGroup: 'CLUSTER',
  }),
  advertise: Flags.string({
    summary:
      'Peer mode: the address the others reach this node at, when --bind is a wildcard (config: [cluster] advertise).',
    helpValue: 'HOST:PORT',
    helpGroup: 'CLUSTER',
  }),
  'cluster-key-file': Flags.string({
    summary: 'Peer mode: the cluster key file, the same on every host (config: [cluster] key_file).',
    helpValue: 'FILE',
    helpGroup: 'CLUSTER',
  }),
  'log-level': Flags.string({
    summary: 'Log level (config: log_level, env: SCHED_LOG_LEVEL).',
    options: [...LOG_LEVELS],
    helpValue: 'LEVEL',
  }),
  tz: Flags.string({
    summary: 'Default time zone for jobs added without --tz, an IANA name (config: timezone, env: SCHED_TZ).',
    helpValue: 'ZONE',
  }),
};

export interface ConfigFlagInput {
  store?: string;
  socket?: string;
  'max-concurrent'?: string;
  'max-children'?: string;
  metrics?: string;
  api?: string;
  'tls-cert'?: string;
  'tls-key'?: string;
  peers?: string;
  join?: string;
  bind?: string;
  advertise?: string;
  'cluster-key-file'?: string;
  'log-level'?: string;
  tz?: string;
}

export function configFlagValues(flags: ConfigFlagInput): FlagValues {
  return {
    store: flags.store,
    socket: flags.socket,
    max_concurrent: flags['max-concurrent'],
    max_children: flags['max-children'],
    metrics_address: flags.metrics,
    'api.listen': flags.api,
    'api.tls_cert_file': flags['tls-cert'],
    'api.tls_key_file': flags['tls-key'],
    'cluster.peers': flags.peers,
    'cluster.join': flags.join,
    'cluster.bind': flags.bind,
    'cluster.advertise': flags.advertise,
    'cluster.key_file': flags['cluster-key-file'],
    log_level: flags['log-level'],
    timezone: flags.tz,
  };
}

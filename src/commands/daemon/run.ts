import { Flags } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';
import { SchedError } from '../../core/errors.js';
import { DEFAULT_LEASE_TTL_MS } from '../../core/cluster/lease-timing.js';
import { configFlags, configFlagValues } from '../../config/flags.js';
import type { PeerConfig } from '../../config/resolve.js';

export default class DaemonRun extends SchedCommand {
  static override localOnly = 'runs the daemon in this process';
  static override enableJsonFlag = false;
  static override description =
    'Run the scheduler daemon in the foreground until SIGTERM or SIGINT. Settings come from flags, then ' +
    'the environment, then config.toml (see `sched config show`). Logs are JSON lines on stdout.';
  static override examples = [
    '<%= config.bin %> daemon run',
    'SCHED_HOME=/srv/sched <%= config.bin %> daemon run --grace 2m --tz Europe/Berlin',
    '<%= config.bin %> daemon run --max-concurrent 4 --metrics 127.0.0.1:9464 --log-level debug',
    '<%= config.bin %> daemon run --api 0.0.0.0:8443 --tls-cert /etc/sched/api.crt --tls-key /etc/sched/api.key',
    '<%= config.bin %> daemon run --store postgres://sched@db.internal/sched --label role=db --label zone=a',
    '<%= config.bin %> daemon run --peers 10.0.0.1:7946,10.0.0.2:7946,10.0.0.3:7946 --bind 10.0.0.1:7946 --cluster-key-file /etc/sched/cluster.key',
    '<%= config.bin %> daemon run --join 10.0.0.1:7946 --bind 10.0.0.4:7946 --cluster-key-file /etc/sched/cluster.key  # then: sched cluster join 10.0.0.4:7946',
  ];
  static override flags = {
    grace: Flags.string({
      summary: 'How long running jobs may finish after SIGTERM before they are killed.',
      helpValue: 'DURATION',
      default: '30s',
    }),
    durability: Flags.string({
      summary:
        'full: every acknowledged change is synced to disk first; relaxed: faster, may lose the last moments before a power cut.',
      options: ['full', 'relaxed'],
      default: 'full',
    }),
    quiet: Flags.boolean({ summary: 'Do not print a JSON line per scheduler event.' }),
    'retention-interval': Flags.string({
      summary: 'How often history is pruned (default 1h).',
      helpValue: 'DURATION',
      hidden: true,
    }),
    ...configFlags,
    label: Flags.string({
      summary:
        'A label of this node, matched by jobs added with --on KEY=VALUE (repeatable; PostgreSQL store).',
      helpValue: 'KEY=VALUE',
      multiple: true,
      multipleNonGreedy: true,
      helpGroup: 'CLUSTER',
    }),
    'heartbeat-interval': Flags.string({
      summary: 'How often this node heartbeats and reads the shard map (default 2s; PostgreSQL store).',
      helpValue: 'DURATION',
      helpGroup: 'CLUSTER',
    }),
    'lease-ttl': Flags.string({
      summary: 'How long the coordinator lease lasts without renewal: the bound on failover (default 10s).',
      helpValue: 'DURATION',
      helpGroup: 'CLUSTER',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonRun);
    const [
      { Daemon },
      { resolveLocations },
      { parseDuration },
      { logDaemonEvents },
      { loadConfig },
      { logFatalErrors },
    ] = await Promise.all([
      import('../../daemon/daemon.js'),
      import('../../ipc/locations.js'),
      import('../../core/duration.js'),
      import('../../daemon/event-log.js'),
      import('../../config/load.js'),
      import('../../daemon/observability/fatal-log.js'),
    ]);
    // Even with --quiet: a daemon that dies must say why in its log.
    logFatalErrors((line) => process.stdout.write(`${line}\n`));
    const config = loadConfig(process.env, configFlagValues(flags));
    const { parseKeyValuePairs } = await import('../../cli/key-value.js');
    const { parseNotifyOn } = await import('../../core/notify/normalize-alerts.js');
    const cluster = {
      labels: parseKeyValuePairs(flags.label, '--label') ?? {},
      heartbeatIntervalMs: flags['heartbeat-interval']
        ? parseDuration(flags['heartbeat-interval'], '--heartbeat-interval')
        : undefined,
      leaseTtlMs: flags['lease-ttl'] ? parseDuration(flags['lease-ttl'], '--lease-ttl') : undefined,
    };
    checkClusterTimings(cluster.heartbeatIntervalMs ?? 2_000, cluster.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS);
    const peers = peerSettings(config.cluster);
    const graceMs = parseDuration(flags.grace, '--grace');
    let stopped: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (stopped = resolve));
    const daemon = new Daemon({
      locations: { ...resolveLocations(process.env), socketPath: config.socket },
      version: this.config.version,
      shutdownGraceMs: graceMs,
      defaultTimezone: config.timezone,
      durability: flags.durability as 'full' | 'relaxed',
      // The default store is the SQLite file in the home, which the daemon finds by itself.
      storeUrl: config.sources.store.kind === 'default' ? undefined : config.store,
      maxConcurrent: config.maxConcurrent ?? undefined,
      maxChildren: config.maxChildren ?? undefined,
      cluster,
      peers,
      metricsAddress: config.metricsAddress ?? undefined,
      metricsTokenFile: config.metricsTokenFile ?? undefined,
      postgresTls: config.postgresTls,
      keyFile: config.keyFile ?? undefined,
      retention: {
        ...config.retention,
        ...(flags['retention-interval']
          ? { intervalMs: parseDuration(flags['retention-interval'], '--retention-interval') }
          : {}),
      },
      backup:
        config.backup.dir !== null && config.backup.everyMs !== null
          ? { dir: config.backup.dir, everyMs: config.backup.everyMs, keep: config.backup.keep }
          : undefined,
      notify: {
        defaults: {
          targets: config.notify.targets,
          on: config.notify.on === null ? null : parseNotifyOn(config.notify.on),
        },
        throttle: {
          maxPerWindow: config.notify.maxPerWindow,
          windowMs: parseDuration(config.notify.window, '[notify] window'),
        },
        webhookSecretFile: config.notify.webhookSecretFile,
        smtpUrl: config.notify.smtpUrl,
        from: config.notify.from,
      },
      access: { ...config.access, socketMode: config.socketMode, socketGroup: config.socketGroup },
      limits: config.limits,
      api: config.api,
      onStopped: () => stopped(),
    });
    if (!flags.quiet)
      logDaemonEvents(daemon.events, (line) => process.stdout.write(`${line}\n`), config.logLevel);
    const { stoppingNotice, HURRY_NOTICE } = await import('../../cli/format/stopping-notice.js');
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals += 1;
      if (signals > 1) {
        if (signals === 2) process.stderr.write(`${HURRY_NOTICE}\n`);
        return daemon.hurry();
      }
      const again = signal === 'SIGINT' ? 'Press Ctrl-C again' : `Send ${signal} again`;
      process.stderr.write(`${stoppingNotice(daemon.runningRuns(), graceMs, again)}\n`);
      void daemon.stop(`received ${signal}`).then(() => stopped());
    };
    // Listening before the start: a peer's start may wait for a majority for as long as it takes.
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    try {
      await daemon.start();
    } catch (error) {
      // Asked to stop while starting: what failed is the start the signal cut short, not an error.
      if (signals === 0) throw error;
    }
    await finished;
  }
}

/** The lease must outlast several heartbeats, or a coordinator could lose it between two renewals. */
function checkClusterTimings(heartbeatMs: number, leaseTtlMs: number): void {
  if (heartbeatMs <= 0 || leaseTtlMs < 4 * heartbeatMs) {
    throw new SchedError(
      'VALIDATION_FAILED',
      `--lease-ttl (${leaseTtlMs} ms) must be at least four heartbeat intervals (${heartbeatMs} ms).`,
      { hint: 'Keep the defaults (--heartbeat-interval 2s --lease-ttl 10s), or shorten the interval.' },
    );
  }
}

/**
 * Peer mode's settings, all or none: `--peers` (or `[cluster] mode = "peers"`) or `--join` needs a bind
 * address and a key file. `--peers` bootstraps a new cluster (every initial voter, this node included);
 * `--join` makes this node a learner of a running one, which `sched cluster join` then makes a voter.
 */
function peerSettings(
  cluster: PeerConfig,
): { peers: string[]; join?: string[]; bind: string; advertise?: string; keyFile: string } | undefined {
  const { peers, join, bind, advertise, keyFile } = cluster;
  if (cluster.mode !== 'peers' && peers.length === 0 && join.length === 0) {
    const stray =
      bind !== null
        ? '--bind'
        : advertise !== null
          ? '--advertise'
          : keyFile !== null
            ? '--cluster-key-file'
            : null;
    if (stray === null) return undefined;
    throw new SchedError(
      'VALIDATION_FAILED',
      `${stray} (or its [cluster] key) is for peer mode, which --peers or --join turns on.`,
      {
        hint: 'Give --peers HOST:PORT,... (every voter, this node included), or --join HOST:PORT (a member of a running cluster), with --bind and --cluster-key-file.',
      },
    );
  }
  if (peers.length > 0 && join.length > 0)
    throw new SchedError(
      'VALIDATION_FAILED',
      '--peers and --join (or their [cluster] keys) do not go together.',
      {
        hint: 'Give --peers to start a new cluster (every initial voter, this node included), or --join to add this node to a running one, not both. A node that already belongs to a cluster takes its voters from its log either way.',
      },
    );
  if ((peers.length === 0 && join.length === 0) || bind === null || keyFile === null) {
    const missing =
      peers.length === 0 && join.length === 0
        ? '--peers (or --join)'
        : bind === null
          ? '--bind'
          : '--cluster-key-file';
    throw new SchedError('VALIDATION_FAILED', `Peer mode needs ${missing} (or its [cluster] key) as well.`, {
      hint: 'Give --peers HOST:PORT,... (every voter, this node included) or --join HOST:PORT (a member of a running cluster), --bind HOST:PORT (where this node listens) and --cluster-key-file FILE (from `sched cluster keygen`).',
    });
  }
  return {
    peers,
    ...(join.length === 0 ? {} : { join }),
    bind,
    ...(advertise === null ? {} : { advertise }),
    keyFile,
  };
}

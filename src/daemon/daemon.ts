import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../core/access/rate-limits.js';
import type { DaemonAccount } from '../core/access/run-as.js';
import { DEFAULT_LEASE_TTL_MS } from '../core/cluster/lease-timing.js';
import { childSlots } from '../core/child-slots.js';
import type { Locations } from '../ipc/locations.js';
import { newId } from '../store/ids.js';
import type { PostgresTlsFiles } from '../store/postgres/tls-plan.js';
import { accessControl, SINGLE_USER, type AccessSettings } from './access/access-control.js';
import { RequestLimits } from './access/request-limits.js';
import { clusterStatusOrDegraded } from './autonomy/degraded-status.js';
import { LocalAutonomy } from './autonomy/local-autonomy.js';
import { LocalReads } from './autonomy/local-reads.js';
import { StoreReachability } from './autonomy/store-reachability.js';
import { ClusterFollower } from './cluster/follow-cluster.js';
import { ClusterKeyService } from './cluster/cluster-key-service.js';
import { ClusterMembership } from './cluster/cluster-membership.js';
import { daemonPeerMembership, leaseLaunchRefusal, onceQuorate } from './cluster/daemon-peers.js';
import type { PeerSettings } from './cluster/peer-membership.js';
import { VoterRequests } from './cluster/voter-requests.js';
import { ForcedRecoveryNotice } from './cluster/forced-recovery-notice.js';
import { systemClock, type Clock } from './clock.js';
import { ScheduledBackups, type BackupSchedule } from './backup/scheduled-backups.js';
import { StoreBackup } from './backup/store-backup.js';
import { Alerting, type NotifySettings } from './notify/alerting.js';
import { registerAlertMetrics } from './notify/alert-metrics.js';
import { storedRunEnd } from './stored-run-end.js';
import { auditDeadRuns } from './dead-run-audit.js';
import { DependencyTrigger } from './dependency-trigger.js';
import { EventStream } from './event-stream.js';
import { DaemonEvents, nextRunEnd } from './events.js';
import { CommandExecutor } from './executor/command-executor.js';
import { HttpExecutor } from './executor/http-executor.js';
import { openFileLimit } from './executor/open-file-limit.js';
import { IdempotencyGuard } from './idempotency-guard.js';
import { JobLookup } from './job-lookup.js';
import { JobService } from './job-service.js';
import { LiveOutput } from './live-output.js';
import { crashLostReason, leftBehindAt, recordLostRunsOf, stopLeftoversOf } from './lost-runs.js';
import { serveDaemonEndpoints } from './observability/daemon-endpoints.js';
import { readBearerToken } from './observability/bearer-token.js';
import { checkExposure, type ObservabilityServer } from './observability/http-endpoint.js';
import { instrumentStore } from './observability/instrumented-store.js';
import { DaemonMetrics } from './observability/metrics.js';
import { registerPeerDropMetrics } from './observability/peer-drop-metrics.js';
import { OccurrenceService } from './occurrence-service.js';
import { ChildJournal } from './orphans/child-journal.js';
import { createRequestRouter, type DaemonControl } from './request-router.js';
import { ApiTokens } from './access/api-tokens.js';
import { JwtCallers } from './access/jwt-callers.js';
import { apiAuthentication } from './api/api-authentication.js';
import { apiService } from './api/api-service.js';
import { readApiTls } from './api/api-tls.js';
import { FailedAuthLimits } from './api/failed-auth-limits.js';
import { apiListenPlan, type ApiSettings } from '../core/api-listen.js';
import { apiOidcPlan } from '../core/api-oidc.js';
import { Retention, type RetentionPolicy } from './retention.js';
import { RunDrain } from './run-drain.js';
import { RunGate } from './run-gate.js';
import { RunRouting } from './run-routing.js';
import { inheritedEnvironment, RunLauncher } from './run-launcher.js';
import { RunService } from './run-service.js';
import { HostScheduler } from './scheduler/host-scheduler.js';
import { Scheduler } from './scheduler/scheduler.js';
import { startWaitingRun } from './scheduler/waiting-run-start.js';
import { WaitingRuns } from './scheduler/waiting-runs.js';
import { service } from './service.js';
import { ServiceStack } from './service-stack.js';
import { acquireInstanceLock, HeldLock } from './single-instance-lock.js';
import { answerSocketRequests, type Route } from './socket-requests.js';
import { SocketService } from './socket-service.js';
import { EventRelay } from './event-relay.js';
import { replayAfter, STREAMED_FROM_STORE } from './event-replay.js';
import { relayRunOutput } from './run-output-relay.js';
import { describeStoreTarget, StoreService, storeTarget } from './store-target.js';
import { ReplySecrets } from './secrets/reply-secrets.js';
import { openSecretsAtRest } from './secrets/secrets-at-rest.js';

export interface DaemonOptions {
  locations: Locations;
  version: string;
  /** How long running jobs may go on after SIGTERM before they are killed. */
  shutdownGraceMs: number;
  defaultTimezone: string;
  /** `full` syncs every commit before replying; `relaxed` trades the last moments before a power cut for speed. */
  durability: 'full' | 'relaxed';
  /** Called once a stop asked for over the socket has finished, so the process can exit. */
  onStopped?: () => void;
  /** Where to keep the store; default SQLite in the home, or a postgres:// URL shared by a federation. */
  storeUrl?: string;
  /** At most this many runs at once; further due runs wait in due order. Default: no limit. */
  maxConcurrent?: number;
  /** At most this many commands alive at once (`max_children`); default: as the open-file limit allows. */
  maxChildren?: number;
  /** Prometheus `/metrics` and `/health` listener, `host:port`; off when absent. */
  metricsAddress?: string;
  /** `metrics_token_file`: the listener asks for its bearer token; needed to bind beyond loopback. */
  metricsTokenFile?: string;
  /** `pg_ca_file`, `pg_cert_file`, `pg_key_file`: TLS to a PostgreSQL store beside its URL's own. */
  postgresTls?: PostgresTlsFiles;
  retention?: Partial<RetentionPolicy>;
  /** `[backup]`: copies of the store on a schedule; off when absent. */
  backup?: BackupSchedule;
  /** `[notify]`: default targets and events, throttle, and how e-mail and signed webhooks go out. */
  notify?: NotifySettings;
  /** `[access]`, `socket_mode` and `socket_group`; default: the daemon's user and root only. */
  access?: AccessSettings;
  /** `[limits]`: requests a minute per caller and verb; default: the design's table, admins exempt. */
  limits?: RateLimits;
  /** `[api]`: the HTTPS API; off when absent or when `listen` is null. */
  api?: ApiSettings;
  /** The secret key file (`key_file`); default `secret.key` in the home. A federation shares one. */
  keyFile?: string;
  /** This node's place in a federation, used when the store is shared. */
  cluster?: { labels?: Record<string, string>; heartbeatIntervalMs?: number; leaseTtlMs?: number };
  /** Peer mode (`--peers`): the store is this node's replica of a log the peers keep by majority. */
  peers?: PeerSettings;
}

/**
 * On PostgreSQL every write costs round trips (about 0.1 ms of CPU on each side, even to a trivial
 * statement), so under load, rounds of fires and writes of run starts and ends that had company wait this
 * long after the one before, and more share each. Unloaded, a fire or write goes at once.
 */
const POSTGRES_FIRE_GAP_MS = 25;
const POSTGRES_WRITE_GAP_MS = 10;

/** Where a test composition changes the daemon; `sched daemon run` passes none. */
export interface DaemonSeams {
  /** Time and timers, so a test can run hours of schedule in milliseconds. */
  clock?: Clock;
  /** Wraps what answers the socket, e.g. to fail between a committed change and its reply. */
  route?: (route: Route) => Route;
  /**
   * Whether a SQLite write may wait in real time to commit with others (yes unless said; see GroupCommit's
   * pacing): a test in virtual time, which lets a fixed number of event-loop turns pass for a write, says no.
   */
  paceWrites?: boolean;
}

/** The daemon process: its services, started in order and stopped in reverse (see ServiceStack). */
export class Daemon {
  readonly events = new DaemonEvents();
  private readonly clock: Clock;
  private readonly stack = new ServiceStack((part, error) =>
    this.events.emit('scheduler:error', { error: new Error(`stopping the ${part.name}: ${error.message}`) }),
  );
  private launcher: RunLauncher | null = null;
  private drain: RunDrain | null = null;
  private observability: ObservabilityServer | null = null;
  private stopping: Promise<void> | null = null;
  private hurried = false;

  constructor(
    private readonly options: DaemonOptions,
    private readonly seams: DaemonSeams = {},
  ) {
    this.clock = seams.clock ?? systemClock;
  }

  async start(): Promise<void> {
    try {
      await this.startServices();
    } catch (error) {
      this.drain?.allowGrace(0);
      await this.stack.stop();
      throw error;
    }
  }

  /** Runs this daemon is running now (0 before it has started). */
  runningRuns(): number {
    return this.launcher?.runningCount() ?? 0;
  }

  /** A second stop signal: skip what is left of the grace period. */
  hurry(): void {
    this.hurried = true;
    this.drain?.hurry();
  }

  /** Stops firing, lets running jobs finish within the grace period, then kills and records them. Idempotent. */
  stop(reason = 'stop requested', graceMs = this.options.shutdownGraceMs): Promise<void> {
    this.stopping ??= (async () => {
      this.events.emit('daemon:stopping', { at: this.clock.now(), reason });
      this.drain?.allowGrace(graceMs);
      await this.stack.stop();
    })();
    return this.stopping;
  }

  /** The address the metrics and health listener is bound to, once started. */
  get observabilityAddress(): string | null {
    return this.observability?.address ?? null;
  }

  private async startServices(): Promise<void> {
    const { locations, version } = this.options;
    const { clock, events, stack } = this;
    // The umask stays the one the daemon was started with, for its jobs; its own files get explicit modes.
    fs.mkdirSync(locations.home, { recursive: true, mode: 0o700 });
    const daemonUser = os.userInfo().username;
    const daemonAccount: DaemonAccount = { user: daemonUser, isRoot: process.getuid?.() === 0 };
    const access = accessControl(this.options.access ?? SINGLE_USER, daemonUser);
    await stack.start(new HeldLock('home lock', () => acquireInstanceLock(locations.lockPath)));

    // Before anything starts: a listener it may not open must not leave jobs fired behind.
    const metricsToken = this.options.metricsTokenFile
      ? readBearerToken(this.options.metricsTokenFile)
      : null;
    if (this.options.metricsAddress) checkExposure(this.options.metricsAddress, metricsToken);
    const slots = childSlots(openFileLimit(), this.options.maxChildren ?? null);
    const apiPlan = this.options.api ? apiListenPlan(this.options.api) : null;
    const apiTls = apiPlan?.tls ? readApiTls(apiPlan.tls) : null;
    const oidcPlan = this.options.api ? apiOidcPlan(this.options.api.oidc) : null;
    const target = storeTarget(this.options.storeUrl, locations.databasePath, this.options.postgresTls);
    const leaseTtlMs = this.options.cluster?.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    // A node stalled past its lease has lost its shards: its open transaction must not hold up theirs.
    // A peer's SQLite is a copy of the replicated log, which is synced before anything is acknowledged:
    // a copy that loses its last commits to a power cut applies them again from the log (or its snapshot).
    const durability = this.options.peers ? 'replica' : this.options.durability;
    const paceWrites = this.seams.paceWrites ?? true;
    const opened = (await stack.start(new StoreService(target, durability, leaseTtlMs, paceWrites))).store;
    const labels = this.options.cluster?.labels ?? {};
    const reachability = new StoreReachability(clock, events, this.options.peers ? 'quorum' : 'store');
    const peers = this.options.peers
      ? await stack.start(
          daemonPeerMembership({
            settings: this.options.peers,
            home: locations.home,
            local: opened,
            labels,
            version,
            clock,
            events,
            reachability,
            launcher: () => this.launcher,
            stop: (reason) => void this.stop(reason),
          }),
        )
      : null;
    const rawStore = peers?.store ?? opened;
    const secrets = await openSecretsAtRest(stack, {
      keyFile: this.options.keyFile ?? path.join(locations.home, 'secret.key'),
      store: rawStore,
      clock,
      newId,
      shared: target.kind === 'postgres' || peers !== null,
      attempt: peers ? onceQuorate(events, stack.stopSignal, 'recording the secret key') : undefined,
    });
    let metrics: DaemonMetrics | null = null;
    const measured = this.options.metricsAddress
      ? instrumentStore(secrets.store, clock, (operation, seconds) =>
          metrics?.storeLatency.observe({ operation }, seconds),
        )
      : secrets.store;
    // Every call to a shared store tells whether it can be reached; a failure to reach it is degraded mode.
    // A SQLite file in the home is never out of reach: its calls are not watched (one promise less each),
    // nor are a peer's (its reads are local: its Raft tells whether it reaches a majority).
    const store = target.kind === 'postgres' ? reachability.observe(measured) : measured;
    const startedAt = clock.now();
    const epoch = await store.nextFenceEpoch();
    const membership = new ClusterMembership(
      target,
      {
        home: locations.home,
        version,
        labels,
        address: () => this.observabilityAddress ?? '',
        load: () => this.runningRuns(),
        heartbeatIntervalMs: this.options.cluster?.heartbeatIntervalMs,
        leaseTtlMs,
        clock,
        onError: (error) => events.emit('cluster:error', { error }),
        epoch,
        startedAt,
      },
      os.hostname(),
    );
    const cluster = peers?.cluster ?? (await stack.start(membership)).cluster;
    const node = cluster.nodeId;
    rawStore.markEventsWith(node);
    const fence = () => cluster.fenceToken();
    // Only a shared store can be out of reach while this node runs on.
    const autonomy = cluster.shared
      ? await stack.start(
          new LocalAutonomy({
            file: path.join(locations.home, 'local-copy.db'),
            store,
            reachability,
            clock,
            events,
            mayRun: (job) => cluster.matches(job),
            copiesDefinitions: peers === null,
          }),
        )
      : null;

    const journal = new ChildJournal(path.join(locations.home, 'children'));
    const leftBehind = leftBehindAt(cluster);
    const stoppedLeftovers = await stopLeftoversOf(store, leftBehind, journal, events, clock);
    const lookup = new JobLookup(store);
    const idempotency = new IdempotencyGuard(store, clock);
    const http = new HttpExecutor({ clock });
    const liveOutput = new LiveOutput();
    const alerting = new Alerting({
      store,
      clock,
      events,
      lookup,
      newId,
      node,
      fence,
      settings: this.options.notify,
      othersWrite: cluster.shared,
    });
    const waitingRuns = new WaitingRuns({
      store,
      clock,
      events,
      due: (run) => startWaitingRun({ store, clock, cluster, launcher, gate })(run),
    });
    let dependencies: DependencyTrigger | null = null;
    // Only where other nodes may follow this node's runs is their output stored as it comes.
    const outputRelay = cluster.shared
      ? relayRunOutput(events, {
          store,
          clock,
          jobIdOf: (runId): string | undefined => launcher.jobIdOf(runId),
          onError: (error) => events.emit('scheduler:error', { error }),
        })
      : null;
    const commands = await CommandExecutor.start({ journalDir: journal.dir, clock, slots });
    const launcher = (this.launcher = new RunLauncher({
      store: autonomy?.launcherStore(store) ?? store,
      clock,
      newId,
      node,
      runFence: fence,
      http,
      events,
      commands,
      baseEnv: inheritedEnvironment(),
      daemonAccount,
      liveOutput,
      waitForRetry: (run) => waitingRuns.add(run),
      extraEnvironment: (run) => dependencies?.environmentFor(run) ?? {},
      notices: alerting.deliveriesFor,
      flushOutput: outputRelay ? (runId) => outputRelay.flush(runId) : undefined,
      retryNode: (job, failedOn): string => routing.automaticRetryNode(job, failedOn),
      keepEndOffline: autonomy
        ? (runId, jobId, outcome) => autonomy.keepEndOffline(runId, jobId, outcome)
        : undefined,
      refuseLaunch: peers ? leaseLaunchRefusal(peers) : undefined,
      writeGapMs: target.kind === 'postgres' ? POSTGRES_WRITE_GAP_MS : 0,
    }));
    if (autonomy) launcher.adoptEndsKeptOffline(autonomy.endsKeptOffline());
    // Stopped once the runs have drained (their ends may start dependents), before the store closes.
    await stack.start(service('dependency trigger', { stop: () => dependencies?.stop() }));
    this.drain = await stack.start(new RunDrain(launcher, clock, this.options.shutdownGraceMs));
    if (this.hurried) this.drain.hurry();
    const gate = new RunGate({
      store,
      clock,
      events,
      maxConcurrent: this.options.maxConcurrent ?? null,
      launch: (run, job) => launcher.launch(run, job),
      kill: (runId, reason) => launcher.kill(runId, reason),
    });
    await stack.start(service('run gate', { stop: () => (gate.close(), gate.settled()) }));
    const routing = new RunRouting(cluster, gate);
    dependencies = new DependencyTrigger({ store, clock, events, gate, routing, newId, node, fence });
    await dependencies.start();
    await recordLostRunsOf(store, launcher, leftBehind, (runId) =>
      crashLostReason(stoppedLeftovers.get(runId)),
    );
    auditDeadRuns(events, store, clock, daemonUser, newId);

    const scheduler = new Scheduler({
      store,
      clock,
      events,
      node,
      runFence: fence,
      newId,
      gate,
      owns: (job) => cluster.owns(job),
      fence: () => cluster.fireFence(),
      onFenced: () => events.emit('cluster:fenced', { term: cluster.fenceToken() }),
      storeUnreachableAt: (instant) => reachability.unreachableAt(instant),
      fireBatchGapMs: target.kind === 'postgres' ? POSTGRES_FIRE_GAP_MS : 0,
      endedHere: (jobId) => (peers === null ? launcher.endedRunsOf(jobId) : launcher.unwrittenEndsOf(jobId)),
    });
    const jobs = new JobService({
      store,
      clock,
      events,
      scheduler,
      lookup,
      idempotency,
      newId,
      daemonAccount,
      defaultTimezone: this.options.defaultTimezone,
      breakerStatus: (url) => http.breakerStatus(url),
      status: () => ({
        pid: process.pid,
        version,
        home: locations.home,
        socketPath: locations.socketPath,
        store: describeStoreTarget(target),
        node,
        startedAt,
        runningRuns: launcher.runningCount(),
        commands: commands.childCounts(),
      }),
    });
    const runs = new RunService({
      store,
      clock,
      events,
      launcher,
      gate,
      routing,
      waitingRuns,
      lookup,
      idempotency,
      newId,
      node,
      runFence: fence,
      liveOutput,
      finishedRun: (id, ms) => nextRunEnd(events, clock, id, ms),
      endedRun: (id, ms) => storedRunEnd(store, clock, id, ms),
    });
    const occurrences = new OccurrenceService({
      store,
      clock,
      events,
      lookup,
      routing,
      newId,
      node,
      fence,
    });
    // Job and run events reach the stream from the outbox, with their ids: this node's as it stores
    // them, other nodes' through the relay. Its own output goes out live, chunk by chunk.
    const stream = new EventStream(events, clock, { node, storedTypes: STREAMED_FROM_STORE });
    const stopFeed = stream.followStore(rawStore);
    await stack.start(service('event feed', { stop: () => stopFeed() }));
    if (outputRelay) await stack.start(service('run output relay', { stop: () => outputRelay.stop() }));
    const storeBackup = new StoreBackup({
      store: rawStore,
      clock,
      events,
      storeDisplay: describeStoreTarget(target),
    });
    const replies = new ReplySecrets({
      isAdmin: access.callerIsAdmin,
      clock,
      newId,
      appendAudit: (entry) => store.appendAudit(entry),
    });
    const tokens = new ApiTokens({ store, clock, newId });
    const clusterKeys = new ClusterKeyService({
      keyring: peers?.keyring ?? null,
      store,
      clock,
      newId,
      onChanged: ({ action, fingerprint, keys }) =>
        events.emit('peer:keyring-changed', {
          action,
          fingerprint,
          keys: keys.map((key) => key.fingerprint),
          primary: keys[0]!.fingerprint,
        }),
      onError: (error) => events.emit('cluster:error', { error }),
    });
    const voterRequests = new VoterRequests({
      peers,
      node,
      store,
      clock,
      newId,
      onError: (error) => events.emit('cluster:error', { error }),
    });
    if (peers) await stack.start(new ForcedRecoveryNotice(peers, { store, clock, newId, events }));
    const control: DaemonControl = {
      tokens,
      clusterKeys,
      // Admins only: the request guard checked the caller's role.
      rotateKey: ({ sharedFile }, actor) => secrets.rotation.rotate(actor.audited, { sharedFile }),
      subscribe: async (requestId, connection, { types, runId, since }) => {
        const replay = since === undefined ? undefined : await replayAfter(rawStore, since);
        void stream
          .subscribe(requestId, connection, { types, runId }, replay)
          .catch((error: Error) => events.emit('scheduler:error', { error }));
        return { subscribed: true, types: types ?? null, shared: cluster.shared };
      },
      clusterStatus: () =>
        clusterStatusOrDegraded(cluster, reachability, clock, scheduler.recentLatenessMs()),
      changeVoters: (action, member, actor) => voterRequests.change(action, member, actor.audited),
      backup: ({ file, force }) => storeBackup.take(file, force),
      stop: async ({ graceMs }) => {
        // Answer first: the reply must leave before the socket closes.
        clock.setTimer(
          50,
          () =>
            void this.stop('stop requested with sched daemon stop', graceMs).then(() =>
              this.options.onStopped?.(),
            ),
        );
        return { stopping: true, pid: process.pid };
      },
    };
    const router = createRequestRouter(
      jobs,
      runs,
      occurrences,
      control,
      (error) => events.emit('scheduler:error', { error }),
      alerting.requests,
      access.guard({
        store,
        clock,
        newId,
        jobIdOfRun: async (ref) => (await runs.find(ref)).jobId,
        limits: new RequestLimits({ limits: this.options.limits ?? DEFAULT_RATE_LIMITS, clock, events }),
      }),
      replies,
      autonomy && peers === null ? new LocalReads(autonomy, clock) : null,
      () => reachability.staleReadNotice(),
    );
    const answer = answerSocketRequests(this.seams.route?.(router.route) ?? router.route, events);
    await stack.start(new SocketService(locations.socketPath, answer, access.socket));
    await stack.start(
      new EventRelay({
        store: rawStore,
        clock,
        node,
        publish: (event) => stream.publishStored(event),
        wanted: () => stream.subscriberCount > 0,
        onError: (error) => events.emit('cluster:error', { error }),
      }),
    );

    await stack.start(service('scheduler', { start: () => scheduler.start(), stop: () => scheduler.stop() }));
    await stack.start(
      service('waiting runs', { start: () => waitingRuns.start(), stop: () => waitingRuns.stop() }),
    );
    if (cluster.shared) {
      const hosts = new HostScheduler({
        store,
        clock,
        events,
        node,
        runFence: fence,
        newId,
        gate,
        matches: (job) => cluster.matches(job),
        offline: autonomy?.offline,
      });
      await stack.start(
        service('every-host scheduler', { start: () => hosts.start(), stop: () => hosts.stop() }),
      );
      await stack.start(
        new ClusterFollower({
          cluster,
          store,
          launcher,
          scheduler,
          waitingRuns,
          hosts,
          events,
          localCopy: autonomy ?? undefined,
          dependencies,
        }),
      );
    }
    const retention = new Retention(
      store,
      clock,
      events,
      this.options.retention,
      () => !cluster.shared || cluster.isCoordinator(),
    );
    await stack.start(service('retention', { start: () => retention.start(), stop: () => retention.stop() }));
    const backups = this.options.backup;
    if (backups)
      await stack.start(new ScheduledBackups({ store: rawStore, clock, events, schedule: backups }));
    await stack.start(alerting);
    if (apiPlan) {
      const authenticate = apiAuthentication({
        tokens,
        jwts: oidcPlan ? new JwtCallers(oidcPlan, clock, daemonUser) : null,
        limits: new FailedAuthLimits(clock),
        store,
        clock,
        events,
        newId,
      });
      const onBug = (error: Error) => events.emit('scheduler:error', { error });
      await stack.start(
        apiService(apiPlan, apiTls, { call: router.call, authenticate, version, clock, onBug }, events),
      );
    }

    const metricsAddress = this.options.metricsAddress;
    if (metricsAddress) {
      metrics = new DaemonMetrics({
        events,
        countJobs: (state) => rawStore.countJobs(state),
        runningRuns: () => launcher.runningCount(),
        waitingRuns: () => waitingRuns.size,
        troubledBreakers: () => http.troubledBreakers(),
        // A cluster of one has no membership to report; its gauges read as one node owning every shard.
        cluster: async () => (cluster.shared ? cluster.status(scheduler.recentLatenessMs()) : null),
      });
      registerAlertMetrics(metrics.registry, events, alerting.watch);
      if (peers) registerPeerDropMetrics(metrics.registry, events);
      const endpoints = {
        address: metricsAddress,
        metrics,
        store: rawStore,
        socketPath: locations.socketPath,
        clock,
        startedAt,
        version,
        degraded: () => reachability.notice(),
        token: metricsToken,
      };
      await stack.start(
        service('metrics endpoint', {
          start: async () => (this.observability = await serveDaemonEndpoints(endpoints)),
          stop: () => this.observability?.close(),
        }),
      );
    }
    events.emit('daemon:started', {
      pid: process.pid,
      at: startedAt,
      metricsAddress: this.observabilityAddress,
    });
  }
}

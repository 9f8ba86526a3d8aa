import { Counter, type Registry } from 'prom-client';
import type { DaemonEvents } from '../events.js';

/** `sched_peer_messages_dropped_total{channel,reason}`, on the daemon's registry (peer mode). */
export function registerPeerDropMetrics(registry: Registry, events: DaemonEvents): void {
  const dropped = new Counter({
    name: 'sched_peer_messages_dropped_total',
    help: 'Peer messages dropped, by channel (datagram, stream) and reason (no-key-opens, too-short, unknown-version, oversized, malformed, ...).',
    labelNames: ['channel', 'reason'],
    registers: [registry],
  });
  events.on('peer:dropped', ({ channel, reason }) => dropped.inc({ channel, reason }));
}

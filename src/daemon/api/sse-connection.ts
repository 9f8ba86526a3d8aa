import type { ServerResponse } from 'node:http';
import type { EventMessage } from '../../ipc/protocol.js';
import type { ServerConnection } from '../../ipc/transport.js';
import type { CancelTimer, Clock } from '../clock.js';

// A comment line this often keeps proxies and the server's own idle timeout from closing a quiet stream.
const HEARTBEAT_MS = 15_000;

/**
 * An HTTP response held open as a Server-Sent Events stream, seen by the daemon's event stream as one more
 * connection: each event is written as an SSE message, with the outbox id as its `id:` where it has one,
 * so a client reconnecting with `Last-Event-ID` resumes after it.
 */
export class SseConnection implements ServerConnection {
  readonly peer = null;
  private heartbeat: CancelTimer | null = null;

  constructor(
    readonly id: number,
    private readonly response: ServerResponse,
    private readonly clock: Clock,
  ) {
    response.once('close', () => this.stopHeartbeat());
  }

  /**
   * Sends the stream's head, once: when the subscription is accepted, or at its first event if that comes
   * sooner. Until then the response may still carry a refusal with its own status.
   */
  open(): void {
    if (this.heartbeat !== null || this.response.headersSent) return;
    this.response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    this.response.write(': sched events\n\n');
    this.beat();
  }

  /**
   * Says the subscription is in place, as the socket's reply to `events.subscribe` does (`shared`: events
   * come from several nodes): a `stream:subscribed` message, after any event that came before it.
   */
  subscribed(reply: unknown): void {
    if (this.response.writableEnded) return;
    this.open();
    const message = { type: 'stream:subscribed', at: this.clock.now(), data: reply };
    this.response.write(`event: stream:subscribed\ndata: ${JSON.stringify(message)}\n\n`);
  }

  send(message: unknown): void {
    const { kind, event } = message as Partial<EventMessage>;
    if (kind !== 'event' || event === undefined || this.response.writableEnded) return;
    this.open();
    const id = event.id === undefined ? '' : `id: ${event.id}\n`;
    this.response.write(`${id}event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  }

  onClose(listener: () => void): void {
    this.response.once('close', listener);
  }

  pendingBytes(): number {
    return this.response.writableLength;
  }

  close(): void {
    this.stopHeartbeat();
    this.response.end();
  }

  private beat(): void {
    this.heartbeat = this.clock.setTimer(HEARTBEAT_MS, () => {
      if (this.response.writableEnded || this.response.destroyed) return;
      this.response.write(': keep-alive\n\n');
      this.beat();
    });
  }

  private stopHeartbeat(): void {
    this.heartbeat?.();
  }
}

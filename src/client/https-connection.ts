import { createParser } from 'eventsource-parser';
import { Agent } from 'undici';
import { SchedError } from '../core/errors.js';
import type { Method, Params, Results, StreamEvent } from '../ipc/protocol.js';
import type { DaemonConnection, StreamListener } from './daemon-connection.js';
import { refusal, unreachable, unreadableStream } from './remote-failure.js';
import { remoteBaseUrl } from './remote-url.js';

/** A daemon's HTTPS API, and what this client shows it. */
export interface RemoteTarget {
  /** The API's base URL: `https://host:port`, with a path when a proxy serves it under one. */
  url: string;
  /** An API token (`sched token create`); sent as `Authorization: Bearer`, never shown. */
  token: string;
  /** PEM certificates to trust for this daemon instead of the system's: a private CA's, or a self-signed one. */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
}

// A quiet stream carries the daemon's comment every 15 s: four missed in a row is a stream that is gone.
const STREAM_SILENCE_MS = 60_000;
// An event holds a job or a run (with 64 KiB output tails); one far past that is not the daemon's.
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

type Subscribed = Results['events.subscribe'];

interface OpenStream {
  abort: AbortController;
  listener: StreamListener;
  reject(error: Error): void;
}

/**
 * The daemon's protocol over its HTTPS API, with keep-alive connections: each request is
 * `POST /v1/call/{method}` with the socket's params as its body, and each event stream a `GET /v1/events`
 * of its own (Server-Sent Events). Answers are the socket's results; refusals carry the API's error
 * envelope, which becomes the same SchedError the socket gives.
 */
export class HttpsConnection implements DaemonConnection {
  /** The base URL, as messages name it. */
  readonly url: string;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly authorization: string;
  private readonly agent: Agent;
  private readonly streams = new Map<number, OpenStream>();
  private nextStream = 1;
  private closed = false;

  constructor(target: RemoteTarget) {
    const base = remoteBaseUrl(target.url);
    this.origin = base.origin;
    this.prefix = base.pathname.replace(/\/+$/, '');
    this.url = `${this.origin}${this.prefix}`;
    if (!/^[\x21-\x7e]+$/.test(target.token)) {
      throw new SchedError(
        'UNAUTHENTICATED',
        'The API token is empty or holds spaces or other characters no token has.',
        {
          hint: 'Give one token, as `sched token create` printed it, in SCHED_TOKEN or a file named by --token-file.',
        },
      );
    }
    this.authorization = `Bearer ${target.token}`;
    this.agent = new Agent({
      connect: target.ca === undefined ? {} : { ca: target.ca as string | Buffer[] },
    });
  }

  async call<M extends Method>(method: M, params: Params<M>): Promise<Results[M]> {
    if (this.closed) throw this.closedError();
    let status: number;
    let text: string;
    try {
      const answer = await this.agent.request({
        origin: this.origin,
        path: `${this.prefix}/v1/call/${method}`,
        method: 'POST',
        headers: { ...this.headers(), 'content-type': 'application/json' },
        body: JSON.stringify(params ?? {}),
      });
      status = answer.statusCode;
      text = await answer.body.text();
    } catch (error) {
      throw this.closed ? this.closedError() : unreachable(this.url, error);
    }
    if (status < 200 || status > 299) throw refusal(this.url, status, text);
    try {
      return JSON.parse(text) as Results[M];
    } catch {
      throw refusal(this.url, status, text);
    }
  }

  openStream(
    params: Params<'events.subscribe'>,
    listener: StreamListener,
  ): { id: number; ready: Promise<Subscribed> } {
    const id = this.nextStream++;
    const abort = new AbortController();
    let settle!: { resolve: (reply: Subscribed) => void; reject: (error: Error) => void };
    const ready = new Promise<Subscribed>((resolve, reject) => (settle = { resolve, reject }));
    if (this.closed) settle.reject(this.closedError());
    else {
      this.streams.set(id, { abort, listener, reject: settle.reject });
      void this.follow(id, params, abort.signal, listener, settle);
    }
    return { id, ready };
  }

  closeStream(id: number): void {
    const stream = this.streams.get(id);
    if (stream === undefined) return;
    this.streams.delete(id);
    stream.abort.abort();
    stream.reject(this.closedError('The event stream was closed.'));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const streams = [...this.streams.values()];
    this.streams.clear();
    for (const stream of streams) {
      stream.abort.abort();
      stream.reject(this.closedError());
      stream.listener.closed();
    }
    void this.agent.destroy().catch(() => {});
  }

  /**
   * Reads one `/v1/events` response until it ends: its events to the listener, `stream:subscribed` to
   * `ready`. A stream this side closed ends quietly; any other end tells the listener, or fails `ready`.
   */
  private async follow(
    id: number,
    params: Params<'events.subscribe'>,
    signal: AbortSignal,
    listener: StreamListener,
    settle: { resolve: (reply: Subscribed) => void; reject: (error: Error) => void },
  ): Promise<void> {
    let subscribed = false;
    let failure: Error | null = null;
    try {
      const answer = await this.agent.request({
        origin: this.origin,
        path: `${this.prefix}/v1/events${streamQuery(params)}`,
        method: 'GET',
        headers: {
          ...this.headers(),
          accept: 'text/event-stream',
          ...(params.since === undefined ? {} : { 'last-event-id': String(params.since) }),
        },
        signal,
        bodyTimeout: STREAM_SILENCE_MS,
      });
      if (answer.statusCode !== 200) throw refusal(this.url, answer.statusCode, await answer.body.text());
      const parser = createParser({
        maxBufferSize: MAX_EVENT_CHARS,
        onError: (error) => {
          if (error.type === 'max-buffer-size-exceeded') throw unreadableStream(this.url, error.message);
        },
        onEvent: (message) => {
          if (!this.streams.has(id)) return;
          const event = parseEvent(message.data, this.url);
          if (event.type !== 'stream:subscribed') return listener.event(event);
          subscribed = true;
          settle.resolve(event.data);
        },
      });
      const text = new TextDecoder();
      for await (const chunk of answer.body) parser.feed(text.decode(chunk as Buffer, { stream: true }));
    } catch (error) {
      failure = unreachable(this.url, error);
    }
    if (!this.streams.delete(id)) return;
    if (subscribed) listener.closed();
    else settle.reject(failure ?? unreachable(this.url, new Error('the event stream ended before it began')));
  }

  private headers(): Record<string, string> {
    return { authorization: this.authorization, accept: 'application/json' };
  }

  private closedError(message = 'The connection to the daemon is closed.'): SchedError {
    return new SchedError('DAEMON_UNAVAILABLE', message, { details: { url: this.url } });
  }
}

function parseEvent(
  data: string,
  url: string,
): StreamEvent | { type: 'stream:subscribed'; data: Subscribed } {
  try {
    const event = JSON.parse(data) as { type?: unknown } | null;
    if (typeof event?.type === 'string') return event as StreamEvent;
  } catch {
    // said below
  }
  throw unreadableStream(url, 'an event that is not a JSON object with a type');
}

function streamQuery(params: Params<'events.subscribe'>): string {
  const query = new URLSearchParams();
  if (params.types !== undefined) query.set('types', params.types.join(','));
  if (params.runId !== undefined) query.set('runId', params.runId);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

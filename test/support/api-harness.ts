import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import type { ApiPatience } from '../../src/daemon/api/api-patience.js';
import { buildApiServer } from '../../src/daemon/api/api-server.js';
import { readApiTls } from '../../src/daemon/api/api-tls.js';
import { systemClock } from '../../src/daemon/clock.js';
import type { HttpsTarget } from './raw-https.js';
import { sched, useDaemons, waitFor, type RunningDaemon } from './sched-harness.js';

/** A self-signed certificate for 127.0.0.1, made by openssl in `dir`. */
export function makeCertificate(dir: string): { certFile: string; keyFile: string; ca: string } {
  const certFile = path.join(dir, 'api.crt');
  const keyFile = path.join(dir, 'api.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile, ca: fs.readFileSync(certFile, 'utf8') };
}

/** The API's address, as the daemon logged it once listening. */
export async function apiAddress(daemon: RunningDaemon): Promise<string> {
  return waitFor(async () => /"api:listening","address":"([^"]+)"/.exec(daemon.output())?.[1]);
}

/** A token made with `sched token create --json`. */
export async function createToken(home: string, args: string[]): Promise<string> {
  const created = await sched(home, ['token', 'create', ...args, '--json']);
  if (created.code !== 0) throw new Error(`token create failed: ${created.stdout}${created.stderr}`);
  return created.json.token as string;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A client of the API at `base` that trusts `ca`, sending `token` unless a request says otherwise. */
export function apiClient(base: string, ca: string) {
  const dispatcher = new Agent({ connect: { ca } });
  const request = async (
    method: string,
    url: string,
    options: {
      token?: string | null;
      body?: unknown;
      rawBody?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<ApiAnswer> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers['authorization'] = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(`${base}${url}`, { method, headers, body, dispatcher });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: the text as it came
    }
    return { status: response.status, headers: response.headers as unknown as Headers, body: parsed };
  };
  /** An SSE stream: `next` waits for the first event (after those already read) that `matches`. */
  const events = async (url: string, token: string, headers: Record<string, string> = {}) => {
    const abort = new AbortController();
    const response = await fetch(`${base}${url}`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
      dispatcher,
      signal: abort.signal,
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    const received: { id: string | null; type: string; data: any }[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
    const next = async (matches: (event: (typeof received)[number]) => boolean) => {
      for (;;) {
        const index = received.findIndex(matches);
        if (index !== -1) return received.splice(0, index + 1).at(-1)!;
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended; it held: ${buffered}`);
        buffered += value;
        let end: number;
        while ((end = buffered.indexOf('\n\n')) !== -1) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const field = (name: string) =>
            [...block.matchAll(/^(\w+): ?(.*)$/gm)].find((m) => m[1] === name)?.[2];
          const data = field('data');
          if (data)
            received.push({ id: field('id') ?? null, type: field('event') ?? '', data: JSON.parse(data) });
        }
      }
    };
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      next,
      close: () => abort.abort(),
    };
  };
  return { request, events, close: () => dispatcher.close() };
}

/** `sched daemon run`'s arguments to serve the API over HTTPS on a free loopback port with `certificate`. */
export function apiDaemonArgs(certificate: { certFile: string; keyFile: string }): string[] {
  return ['--api', '127.0.0.1:0', '--tls-cert', certificate.certFile, '--tls-key', certificate.keyFile];
}

/** A daemon in a new home serving the API over HTTPS on a free loopback port, and a client that trusts it. */
export async function startApiDaemon(daemons: ReturnType<typeof useDaemons>) {
  const home = daemons.home();
  const certificate = makeCertificate(home);
  const daemon = await daemons.start(home, apiDaemonArgs(certificate));
  const url = `https://${await apiAddress(daemon)}`;
  return {
    home,
    daemon,
    url,
    certFile: certificate.certFile,
    certificate,
    api: apiClient(url, certificate.ca),
  };
}

export interface ApiServerAlone {
  target: HttpsTarget;
  close: () => Promise<void>;
}

/**
 * The API's fastify server alone, over TLS on a free loopback port, for a caller every token passes as and
 * a daemon that answers every request with an empty result: for what the server does before and around the
 * daemon's answer (parsing, deadlines, refusals).
 */
export async function startApiServerAlone(dir: string, patience?: ApiPatience): Promise<ApiServerAlone> {
  const certificate = makeCertificate(dir);
  const { app } = await buildApiServer(
    readApiTls(certificate),
    {
      call: async () => ({ ok: true, result: {} }),
      authenticate: async () => ({ user: 'alice', uid: -1, gid: -1, pid: -1, groups: [] }),
      version: '0.0.0',
      clock: systemClock,
      onBug: () => undefined,
    },
    patience,
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { target: { host: '127.0.0.1', port, ca: certificate.ca }, close: () => app.close() };
}

/** startApiServerAlone for the tests of one describe block: started before them, closed after them. */
export function useApiServerAlone(patience?: ApiPatience): () => ApiServerAlone {
  const homes = useDaemons(afterAll);
  let server: ApiServerAlone | undefined;
  beforeAll(async () => {
    server = await startApiServerAlone(homes.home(), patience);
  });
  afterAll(async () => {
    await server?.close();
  });
  return () => server!;
}

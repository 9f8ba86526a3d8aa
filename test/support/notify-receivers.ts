import { createHmac } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The status this request was answered with. */
  status: number;
}

/** A real HTTP server on loopback that records what it is sent; `answer` decides each status. */
export async function startHookServer(answer: (request: Omit<Received, 'status'>) => number = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const seen = { path: request.url ?? '', headers: request.headers, body };
      const status = answer(seen);
      received.push({ ...seen, status });
      response.writeHead(status);
      response.end(status < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether a webhook body carries the signature sched makes with `secret`. */
export function signedWith(secret: string, received: Received): boolean {
  const expected = `sha256=${createHmac('sha256', secret).update(received.body).digest('hex')}`;
  return received.headers['x-sched-signature'] === expected;
}

const SMTP_REPLIES: Record<string, string> = {
  EHLO: '250 test-smtp',
  HELO: '250 test-smtp',
  MAIL: '250 2.1.0 ok',
  RCPT: '250 2.1.5 ok',
  DATA: '354 go ahead',
  QUIT: '221 bye',
  RSET: '250 ok',
  NOOP: '250 ok',
};

/** Just enough SMTP (RFC 5321, no extensions) for nodemailer to hand over a message; records each one. */
export async function startSmtpServer() {
  const messages: { from: string; to: string[]; data: string }[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setEncoding('utf8');
    let buffer = '';
    let inData = false;
    let current = { from: '', to: [] as string[], data: '' };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 test-smtp ready');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end === -1) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          messages.push(current);
          current = { from: '', to: [], data: '' };
          reply('250 2.0.0 queued as test');
          continue;
        }
        const newline = buffer.indexOf('\r\n');
        if (newline === -1) return;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'MAIL') current.from = line;
        if (verb === 'RCPT') current.to.push(line);
        if (verb === 'DATA') inData = true;
        reply(SMTP_REPLIES[verb] ?? '502 not implemented');
        if (verb === 'QUIT') socket.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    messages,
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

import net from 'node:net';

export interface TcpProxy {
  /** `url` with its host and port pointed at the proxy. */
  url: string;
  /** Drops every connection and refuses new ones, as an unreachable database would. */
  cut: () => void;
  /** Lets connections through again. */
  restore: () => void;
  close: () => Promise<void>;
}

/** A loopback TCP proxy in front of the database at `url`, so a test can cut one client off. */
export async function startTcpProxy(url: string): Promise<TcpProxy> {
  const target = new URL(url);
  const sockets = new Set<net.Socket>();
  let open = true;

  const server = net.createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const [socket, peer] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(socket);
      socket.on('error', () => peer.destroy());
      socket.on('close', () => {
        sockets.delete(socket);
        peer.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as net.AddressInfo).port);
  return {
    url: proxied.toString(),
    cut: () => {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore: () => {
      open = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

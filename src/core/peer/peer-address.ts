import { inputError } from '../input-error.js';

/** Where a peer listens: its UDP port for gossip and its TCP port for streams are the same number. */
export interface PeerAddress {
  host: string;
  port: number;
}

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/;

/** `host:port`, `[v6]:port`: the form of `--peers` and `--bind`, and of a member's id on the wire. */
export function parsePeerAddress(text: string): PeerAddress {
  const address = tryParsePeerAddress(text);
  if (address === null)
    throw inputError(
      'VALIDATION_FAILED',
      `"${text.slice(0, 100)}" is not a peer address.`,
      'Give host:port, e.g. 10.0.0.1:7946, or [v6 address]:port, e.g. [fd00::1]:7946.',
    );
  return address;
}

export function tryParsePeerAddress(text: string): PeerAddress | null {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (!match) return null;
  const port = Number(match[3]);
  if (port < 1 || port > 65_535) return null;
  const v6 = match[1];
  if (v6 !== undefined) return IPV6.test(v6) && v6.includes(':') ? { host: v6, port } : null;
  const host = match[2]!;
  return HOST.test(host) && host.length <= 253 ? { host, port } : null;
}

export function formatPeerAddress(address: PeerAddress): string {
  return address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

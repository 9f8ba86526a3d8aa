/**
 * True for a host name or address that only this machine can reach: `localhost`, 127.0.0.0/8 and ::1
 * (bare, bracketed or IPv4-mapped). Anything else, a wildcard such as 0.0.0.0 included, may be reached
 * from elsewhere.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  const ipv4 = bare.replace(/^::ffff:/, '');
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ipv4)) return true;
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
}

import { isIP } from 'node:net';
import { log } from './log';

// Who sent a request, for the per-client limits on view beacons and sign-ups and for telling a
// reader's repeat views apart. Never trusted for anything else (no access decision rests on it).

/** The socket's peer is a proxy on this machine (Nginx): only then is X-Forwarded-For believed. */
function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/**
 * The address `hops` proxies back in X-Forwarded-For (CloudFront → load balancer → Nginx: 3),
 * or the socket's peer when `hops` is 0, when no header came, or when the peer is not a proxy on
 * this machine (a client that reached Node directly could write any header it liked). Each proxy
 * appends the address it was reached from, so the last `hops` entries are the proxies' own; a
 * chain shorter than that went around a proxy, and the entry the nearest proxy wrote (the last)
 * names the client, never the first, which the client may have written itself.
 */
export function clientAddress(remoteAddress: string | undefined, forwardedFor: string | string[] | undefined, hops: number): string {
  const peer = remoteAddress ?? '';
  if (hops === 0 && forwardedFor !== undefined && isLoopback(peer)) warnHopsUnset();
  if (hops === 0 || forwardedFor === undefined || !isLoopback(peer)) return peer;
  const chain = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (chain.length === 0) return peer;
  const entry = chain.length >= hops ? chain[chain.length - hops]! : chain[chain.length - 1]!;
  return entry.slice(0, 64);
}

let warnedHopsUnset = false;

/** Behind a local proxy with CLIENT_ADDRESS_HOPS=0, every reader is the proxy: say so, once. */
function warnHopsUnset(): void {
  if (warnedHopsUnset) return;
  warnedHopsUnset = true;
  log.warn(
    'requests come through a proxy on this machine (X-Forwarded-For) but CLIENT_ADDRESS_HOPS is 0: every reader counts as one client for the per-client limits on views and sign-ups; set it to the number of proxies in front (1 behind Nginx alone, 3 behind CloudFront, the load balancer and Nginx)',
  );
}

/**
 * The key a per-client limit counts under: an IPv4 address as it is, an IPv6 address by its /64
 * (one subscriber's network; a client given a /64 could otherwise take a new address for every
 * request). Anything else (a proxy's odd entry) as it is.
 */
export function clientKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

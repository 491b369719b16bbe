// The one guard against server-side request forgery: outgoing requests the server makes for users (the image proxy,
// outgoing webhooks) must not reach loopback, private, link-local or other special-use addresses. The check runs on
// the address actually connected to (a `lookup` for node's http/https), so a DNS name cannot point inside.
import type { LookupFunction } from 'node:net';
import { BlockList, isIP } from 'node:net';
import dns from 'node:dns';

const SPECIAL_USE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) SPECIAL_USE.addSubnet(net, bits, 'ipv4');
// `::/96` holds the unspecified and loopback addresses and the deprecated IPv4-compatible ones; `2002::/16` (6to4)
// embeds an IPv4 address a relay would route to.
for (const [net, bits] of [
  ['::', 96], ['64:ff9b::', 96], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7],
  ['fe80::', 10], ['ff00::', 8],
] as const) SPECIAL_USE.addSubnet(net, bits, 'ipv6');

/** Whether an address is loopback, private, link-local, multicast or otherwise not on the public internet. */
export function isSpecialUse(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return SPECIAL_USE.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return SPECIAL_USE.check(mapped[1]!, 'ipv4');
  return SPECIAL_USE.check(address, 'ipv6');
}

/** Whether a URL's host is an address literal that may not be connected to (literals skip the lookup). */
export function refusedLiteral(url: URL, allowPrivate: boolean): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return !allowPrivate && isIP(host) !== 0 && isSpecialUse(host);
}

/** A lookup for node's http/https that refuses names resolving only to special-use addresses (unless allowed). */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const ok = allowPrivate ? list : list.filter((a) => !isSpecialUse(a.address));
      if (ok.length === 0) return callback(Object.assign(new Error(`${hostname} has no public address`), { code: 'EPRIVATE' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, ok);
      callback(null, ok[0]!.address, ok[0]!.family);
    });
  };
}

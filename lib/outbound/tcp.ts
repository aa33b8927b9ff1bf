// TCP and TLS connections to destinations users configure that are not HTTP
// (syslog receivers, Kafka brokers), under the same CAIRN_OUTBOUND_ALLOW
// policy as the HTTP client (client.ts): private, loopback, link-local, cloud
// metadata and other reserved addresses are refused unless allowed. The check
// runs on every address a name resolves to, when connecting, so a name that
// resolves to an internal address (DNS rebinding) is refused too.
import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import ipaddr from 'ipaddr.js';
import { OutboundError, type OutboundPolicy } from './client.js';

export interface TcpTarget {
  /** A name, an IPv4 address, or an IPv6 address with or without brackets. */
  host: string;
  port: number;
  /** TLS options (CA, ...) for a TLS connection; null for plain TCP. */
  tls: tls.ConnectionOptions | null;
}

function inCidr(address: ipaddr.IPv4 | ipaddr.IPv6, cidr: string): boolean {
  const [network, bits] = ipaddr.parseCIDR(cidr);
  return network.kind() === address.kind() && address.match(network, bits);
}

/**
 * Why `address` (an IP that `host` resolved to) may not be reached, or null.
 * The same rules as request-filtering-agent under the HTTP client: an allowed
 * CIDR always passes, the unspecified address never, an allowed host name
 * may resolve to private addresses, and otherwise only public unicast passes.
 */
export function addressRefusal(policy: OutboundPolicy, address: string, host = address): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process(): an IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 address it is.
    parsed = ipaddr.process(address);
  } catch {
    return `${address} is not an IP address`;
  }
  if (policy.allowCidrs.some((cidr) => inCidr(parsed, cidr))) return null;
  const range = parsed.range();
  const refused = `${host} resolves to ${address}, an address cairn does not call (private, loopback, link-local or reserved); allow it with CAIRN_OUTBOUND_ALLOW`;
  if (range === 'unspecified') return refused;
  if (policy.allowHosts.includes(host.toLowerCase())) return null;
  return range === 'unicast' ? null : refused;
}

function bare(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

/** For a host given as an IP address, why it may not be reached (null for names, which are checked when they resolve). */
export function literalAddressRefusal(policy: OutboundPolicy, host: string): string | null {
  const address = bare(host);
  return net.isIP(address) ? addressRefusal(policy, address) : null;
}

/** dns.lookup that fails when any address the name resolves to is refused. */
function guardedLookup(policy: OutboundPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      for (const { address } of addresses) {
        const refusal = addressRefusal(policy, address, hostname);
        if (refusal) return callback(new OutboundError('blocked_address', refusal), '', 0);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * A socket connecting to the target under the policy, returned at once as
 * net.connect and tls.connect do (`onConnect` runs once connected, after the
 * TLS handshake for TLS); a refused address destroys it with an
 * OutboundError('blocked_address'). Kafka clients take this as their socket factory.
 */
export function guardedSocket(policy: OutboundPolicy, target: TcpTarget, onConnect?: () => void): net.Socket {
  const host = bare(target.host);
  if (net.isIP(host)) {
    // Node does not call `lookup` for an IP address: check it here.
    const refusal = addressRefusal(policy, host);
    if (refusal) {
      const socket = new net.Socket();
      process.nextTick(() => socket.destroy(new OutboundError('blocked_address', refusal)));
      return socket;
    }
  }
  const lookup = guardedLookup(policy);
  if (target.tls) {
    return tls.connect({ minVersion: 'TLSv1.2', ...target.tls, host, port: target.port, lookup, ...(net.isIP(host) ? {} : { servername: host }) }, onConnect);
  }
  return net.connect({ host, port: target.port, lookup }, onConnect);
}

/** Connects under the policy; resolves once the connection (and its TLS handshake) is up. */
export function guardedConnect(policy: OutboundPolicy, target: TcpTarget, timeoutMs = 10_000): Promise<net.Socket> {
  const where = `${target.host}:${target.port}`;
  return new Promise((resolve, reject) => {
    const socket = guardedSocket(policy, target, () => {
      done();
      resolve(socket);
    });
    const fail = (err: Error) => {
      done();
      socket.destroy();
      if (err instanceof OutboundError) return reject(err);
      const code = (err as NodeJS.ErrnoException).code;
      reject(new OutboundError('network', `cannot reach ${where}: ${code && !err.message.includes(code) ? `${code} ` : ''}${err.message}`, { cause: err }));
    };
    const timer = setTimeout(() => fail(new OutboundError('timeout', `no connection to ${where} within ${timeoutMs} ms`)), timeoutMs);
    socket.once('error', fail);
    function done() {
      clearTimeout(timer);
      socket.off('error', fail);
    }
  });
}

// The plain syslog listeners: UDP (one datagram, one message) and streams
// (TCP, and TLS per RFC 5425, framed as framing.ts says). RELP is relp.ts.
import dgram from 'node:dgram';
import fs from 'node:fs';
import type { Socket } from 'node:net';
import { Gauge } from 'prom-client';
import type { Logger } from '../../lib/logger.js';
import { ConnectionFlow, type LagWatch, type SenderRateLimit } from './flow.js';
import { StreamFramer, type Frame } from './framing.js';
import { MAX_MESSAGE_BYTES, senderAddress, type AddressSet, type MessageBuilder, type Origin } from './message.js';
import { countMessages, syslogMetrics, type MessageOutcome } from './metrics.js';
import type { SyslogPublisher } from './publisher.js';

export type ListenerKind = 'udp' | 'tcp' | 'tls' | 'relp';

/** What every listener shares. */
export interface ListenerContext {
  builder: MessageBuilder;
  publisher: SyslogPublisher;
  allow: AddressSet;
  rate: SenderRateLimit;
  lag: LagWatch;
  logger: Logger;
}

/** A connection silent this long is closed: a sender holding connections open without sending costs us sockets. */
export const IDLE_TIMEOUT_MS = 10 * 60_000;
/** Open connections per sender address, per listener; more are refused (counted). */
export const CONNECTIONS_PER_SENDER = 64;

/**
 * Hands messages to the bus and counts what became of them once it answers.
 * Answers, per frame, the promise that settles when the bus holds it.
 */
export function submit(frames: Frame[], origin: Origin, kind: ListenerKind, ctx: ListenerContext, onSettled?: (n: number) => void): Promise<void>[] {
  const now = Date.now();
  const batches = new Map<Promise<void>, Record<'accepted' | 'truncated' | 'dead_lettered', number>>();
  const promises = frames.map((frame) => {
    const built = ctx.builder.build(frame, origin, now);
    const outcome = 'garbage' in built ? 'dead_lettered' : built.truncated ? 'truncated' : 'accepted';
    const promise = 'garbage' in built ? ctx.publisher.deadLetter(frame.bytes, built.garbage, origin.listener, origin.sender) : ctx.publisher.publish(built.artifact);
    const counts = batches.get(promise) ?? { accepted: 0, truncated: 0, dead_lettered: 0 };
    counts[outcome]++;
    batches.set(promise, counts);
    return promise;
  });
  for (const [promise, counts] of batches) {
    const n = counts.accepted + counts.truncated + counts.dead_lettered;
    promise.then(
      () => {
        for (const outcome of ['accepted', 'truncated', 'dead_lettered'] as const) countMessages(kind, outcome, counts[outcome]);
        onSettled?.(n);
      },
      (err: unknown) => {
        countMessages(kind, 'dropped_bus_refused', n);
        ctx.logger.warn({ listener: origin.listener, messages: n, err: (err as Error).message }, 'the bus did not take syslog messages');
        onSettled?.(n);
      },
    );
  }
  return promises;
}

/** Counts connections per sender, refusing past CONNECTIONS_PER_SENDER; true when the connection may stay. */
export function admitConnection(socket: Socket, kind: ListenerKind, ctx: ListenerContext, open: Map<string, number>): boolean {
  const sender = senderAddress(socket.remoteAddress);
  const refuse = (reason: 'not_allowed' | 'too_many_connections') => {
    syslogMetrics.refused.inc({ listener: kind, reason });
    ctx.logger.debug({ listener: kind, sender, reason }, 'syslog connection refused');
    socket.destroy();
    return false;
  };
  if (!ctx.allow.has(sender)) return refuse('not_allowed');
  const count = open.get(sender) ?? 0;
  if (count >= CONNECTIONS_PER_SENDER) return refuse('too_many_connections');
  open.set(sender, count + 1);
  socket.once('close', () => {
    const left = (open.get(sender) ?? 1) - 1;
    if (left > 0) open.set(sender, left);
    else open.delete(sender);
  });
  socket.setTimeout(IDLE_TIMEOUT_MS, () => {
    syslogMetrics.refused.inc({ listener: kind, reason: 'idle_timeout' });
    socket.destroy();
  });
  // A reset by the sender is the sender's business; what it cost is counted on close.
  socket.on('error', (err) => ctx.logger.debug({ listener: kind, sender, err: err.message }, 'syslog connection error'));
  return true;
}

/** Reads syslog messages from an admitted TCP or TLS connection until it closes. */
export function readSyslogStream(socket: Socket, kind: ListenerKind, port: number, ctx: ListenerContext): void {
  const origin: Origin = { sender: senderAddress(socket.remoteAddress), listener: `${kind}/${port}` };
  const framer = new StreamFramer(MAX_MESSAGE_BYTES);
  const flow = new ConnectionFlow(socket, kind, ctx.lag);
  socket.on('data', (chunk: Buffer) => {
    const frames = framer.push(chunk);
    if (frames.length === 0) return;
    flow.inFlight += frames.length;
    submit(frames, origin, kind, ctx, (n) => flow.settled(n));
    flow.afterRead(ctx.rate.take(origin.sender, frames.length));
  });
  socket.once('close', () => {
    // A message the sender had not finished when the connection broke: lost, and said so.
    if (framer.pendingBytes() > 0) countMessages(kind, 'dropped_connection_lost');
  });
}

/** Kernel drops of a UDP socket bound to `port` (the drops column of /proc/net/udp), or 0 where that cannot be read. */
function kernelUdpDrops(port: number): number {
  let drops = 0;
  for (const file of ['/proc/net/udp', '/proc/net/udp6']) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      const local = columns[1];
      if (local && parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) drops += Number(columns.at(-1)) || 0;
    }
  }
  return drops;
}

const udpPorts = new Set<number>();
// Read when scraped: the kernel counts datagrams it dropped because cairn did not read them in time.
new Gauge({
  name: 'svc_syslog_udp_socket_drops',
  help: 'Datagrams the kernel dropped on the syslog UDP socket (receive buffer full), since the socket opened',
  collect() {
    this.set([...udpPorts].reduce((sum, port) => sum + kernelUdpDrops(port), 0));
  },
});

/** The syslog UDP listener's kernel drops, for the appliance stats. */
export function udpSocketDrops(): number {
  return [...udpPorts].reduce((sum, port) => sum + kernelUdpDrops(port), 0);
}

/** A big receive buffer rides out bursts; the kernel caps it at net.core.rmem_max. */
const UDP_RECEIVE_BUFFER = 8 * 1024 * 1024;

export async function startUdpListener(host: string, port: number, ctx: ListenerContext): Promise<{ port: number; close(): Promise<void> }> {
  const socket = dgram.createSocket({ type: host.includes(':') ? 'udp6' : 'udp4', recvBufferSize: UDP_RECEIVE_BUFFER });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const bound = socket.address().port;
  udpPorts.add(bound);
  const listener = `udp/${bound}`;
  socket.on('error', (err) => ctx.logger.warn({ listener, err: err.message }, 'syslog UDP socket error'));
  socket.on('message', (datagram, remote) => {
    const sender = senderAddress(remote.address);
    const drop = (outcome: MessageOutcome) => countMessages('udp', outcome);
    if (!ctx.allow.has(sender)) return void syslogMetrics.refused.inc({ listener: 'udp', reason: 'not_allowed' });
    if (ctx.lag.behind) return drop('dropped_lag');
    if (!ctx.rate.tryTake(sender)) return drop('dropped_rate_limit');
    if (datagram.length === 0) return;
    const bytes = datagram.subarray(0, Math.min(datagram.length, MAX_MESSAGE_BYTES));
    submit([{ bytes, truncated: datagram.length > MAX_MESSAGE_BYTES }], { sender, listener }, 'udp', ctx);
  });
  return {
    port: bound,
    async close() {
      udpPorts.delete(bound);
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}

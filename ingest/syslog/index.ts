// The syslog listeners (docs/syslog.md): UDP, TCP, TLS (RFC 5425) and RELP,
// each opened when its port is configured, all publishing artifacts to
// artifacts.raw as HTTP ingest does. `cairn start` and `cairn api` run them.
import net from 'node:net';
import fs from 'node:fs';
import tls from 'node:tls';
import type { Config } from '../../config/env.js';
import type { Logger } from '../../lib/logger.js';
import type { Bus } from '../../pipeline/bus/index.js';
import type { IngestLag } from '../../pipeline/ingest-lag.js';
import { LagWatch, SenderRateLimit } from './flow.js';
import { admitConnection, readSyslogStream, startUdpListener, type ListenerContext, type ListenerKind } from './listeners.js';
import { AddressSet, MessageBuilder, senderAddress } from './message.js';
import { syslogMetrics } from './metrics.js';
import { SyslogPublisher } from './publisher.js';
import { serveRelpSession } from './relp.js';


/** The certificate and key TLS serves, with an identity that changes when they do. */
export interface ServedCertificate {
  id: string;
  cert: string;
  key: string;
}

export interface SyslogOptions {
  config: Pick<Config, 'host' | 'syslog' | 'logTimezone'>;
  bus: Bus;
  lag: IngestLag;
  logger: Logger;
  /** The TLS settings' active certificate (docs/tls.md), or null while none is; read again every `certificatePollMs`. */
  certificate?: () => Promise<ServedCertificate | null>;
  certificatePollMs?: number;
}

export interface SyslogListeners {
  /** The bound port of each listener that runs (tls only once a certificate is active). */
  ports(): Partial<Record<ListenerKind, number>>;
  close(): Promise<void>;
}

/** How often TLS looks for a changed certificate, as HTTPS does (ops/tls/listener.ts POLL_MS). */
const CERTIFICATE_POLL_MS = 5000;
/** TLS versions below this are refused, as for HTTPS. */
const MIN_TLS_VERSION = 'TLSv1.2';

async function listen(server: net.Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as net.AddressInfo).port;
}

export async function startSyslogListeners({ config, bus, lag, logger, certificate, certificatePollMs = CERTIFICATE_POLL_MS }: SyslogOptions): Promise<SyslogListeners> {
  const settings = config.syslog;
  const log = logger.child({ component: 'syslog' });
  const ctx: ListenerContext = {
    builder: new MessageBuilder(settings, config.logTimezone),
    publisher: new SyslogPublisher(bus),
    allow: new AddressSet(settings.allow),
    rate: new SenderRateLimit(settings.ratePerSender),
    lag: new LagWatch(lag),
    logger: log,
  };
  const ports: Partial<Record<ListenerKind, number>> = {};
  const closers: (() => Promise<void>)[] = [];
  const servers: net.Server[] = [];
  /** Every open connection, ended at close (a server's close waits for its connections otherwise). */
  const sockets = new Set<net.Socket>();

  function streamServer(kind: ListenerKind, serve: (socket: net.Socket, port: number) => void, server: net.Server = net.createServer()): net.Server {
    const open = new Map<string, number>();
    const event = kind === 'tls' ? 'secureConnection' : 'connection';
    server.on('connection', (socket: net.Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      // TLS: the allow list is checked before the handshake, on the plain socket.
      if (kind === 'tls' && !ctx.allow.has(senderAddress(socket.remoteAddress))) refuseEarly(socket);
    });
    server.on(event, (socket: net.Socket) => {
      if (admitConnection(socket, kind, ctx, open)) serve(socket, ports[kind]!);
    });
    servers.push(server);
    return server;
  }
  function refuseEarly(socket: net.Socket): void {
    syslogMetrics.refused.inc({ listener: 'tls', reason: 'not_allowed' });
    socket.destroy();
  }

  try {
    if (settings.udpPort !== undefined) {
      const udp = await startUdpListener(config.host, settings.udpPort, ctx);
      ports.udp = udp.port;
      closers.push(() => udp.close());
    }
    if (settings.tcpPort !== undefined) {
      ports.tcp = await listen(streamServer('tcp', (s, port) => readSyslogStream(s, 'tcp', port, ctx)), config.host, settings.tcpPort);
    }
    if (settings.relpPort !== undefined) {
      ports.relp = await listen(streamServer('relp', (s, port) => serveRelpSession(s, port, ctx)), config.host, settings.relpPort);
    }
    if (settings.tlsPort !== undefined) {
      if (!certificate) throw new Error('CAIRN_SYSLOG_TLS_PORT needs the TLS settings\' certificate, which this process cannot read');
      closers.push(await startTlsListener(settings.tlsPort));
    }
  } catch (err) {
    await close();
    throw err;
  }
  for (const [kind, port] of Object.entries(ports)) log.info({ listener: kind, port }, `syslog ${kind.toUpperCase()} listening on ${config.host}:${port}`);

  /** TLS opens once a certificate is active, and takes a new one for new handshakes when it changes, as HTTPS does. */
  async function startTlsListener(port: number): Promise<() => Promise<void>> {
    const clientCa = settings.tlsClientCaFile ? fs.readFileSync(settings.tlsClientCaFile, 'utf8') : undefined;
    const secure = (served: ServedCertificate): tls.SecureContextOptions => ({ cert: served.cert, key: served.key, minVersion: MIN_TLS_VERSION, ...(clientCa ? { ca: clientCa } : {}) });
    let server: tls.Server | null = null;
    let servedId: string | null = null;
    let checking: Promise<void> = Promise.resolve();
    const check = async () => {
      const served = await certificate!();
      if (!served || served.id === servedId) return;
      if (!server) {
        const candidate = tls.createServer({ ...secure(served), requestCert: Boolean(clientCa), rejectUnauthorized: Boolean(clientCa) });
        candidate.on('tlsClientError', (err) => {
          syslogMetrics.refused.inc({ listener: 'tls', reason: 'tls_handshake_failed' });
          log.debug({ err: err.message }, 'syslog TLS handshake failed');
        });
        ports.tls = await listen(streamServer('tls', (s, bound) => readSyslogStream(s, 'tls', bound, ctx), candidate), config.host, port);
        server = candidate;
        log.info({ listener: 'tls', port: ports.tls, client_certificates: Boolean(clientCa) }, `syslog TLS listening on ${config.host}:${ports.tls}`);
      } else {
        server.setSecureContext(secure(served));
        log.info({ listener: 'tls' }, 'syslog TLS certificate changed');
      }
      servedId = served.id;
    };
    await (checking = check());
    if (!server) log.info({ listener: 'tls', port }, 'syslog TLS waits for an active TLS certificate (POST /api/v1/tls/certificates)');
    const timer = setInterval(() => {
      checking = checking.then(check).catch((err: unknown) => log.error({ err }, 'syslog TLS certificate check failed'));
    }, certificatePollMs);
    timer.unref();
    return async () => {
      clearInterval(timer);
      await checking.catch(() => {});
    };
  }

  async function close(): Promise<void> {
    for (const server of servers) server.close();
    for (const socket of sockets) socket.destroy();
    await Promise.all(closers.map((c) => c()));
    // Messages read before the listeners closed still reach the bus.
    await ctx.publisher.drain();
    ctx.rate.close();
    ctx.lag.close();
  }

  return { ports: () => ({ ...ports }), close };
}

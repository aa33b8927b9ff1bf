// Syslog over TCP (or TLS): one RFC 5424 message per artifact, framed by
// octet counting (RFC 6587), on a connection kept open between batches.
//
// TCP syslog has no acknowledgement: a batch counts as delivered once the
// kernel took every byte on a connection that was open. Before each batch
// the connection is checked (a receiver that went away has closed it, and a
// new connection is refused while it is down), so a receiver that stops
// makes the batch fail and wait instead of vanishing into a dead socket.
import type net from 'node:net';
import type { Artifact } from '../../clickhouse/tables/artifacts.js';
import type { OutboundPolicy } from '../../lib/outbound/client.js';
import { guardedConnect } from '../../lib/outbound/tcp.js';
import type { Sender } from './destination.js';
import { octetFrame, syslogMessage } from './payload.js';
import type { SyslogSettings } from './settings.js';

const CONNECT_TIMEOUT_MS = 10_000;
/** A receiver that stops reading for this long fails the batch. */
const WRITE_TIMEOUT_MS = 30_000;

export class SyslogSender implements Sender {
  private socket: net.Socket | null = null;

  constructor(
    private readonly settings: SyslogSettings,
    private readonly policy: OutboundPolicy,
  ) {}

  async send(artifacts: Artifact[], signal: AbortSignal): Promise<void> {
    const payload = Buffer.concat(artifacts.map((a) => octetFrame(syslogMessage(a))));
    const socket = await this.connection();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => socket.destroy(new Error(`${this.settings.host}:${this.settings.port} took no data for ${WRITE_TIMEOUT_MS / 1000} s`)), WRITE_TIMEOUT_MS);
      const onAbort = () => socket.destroy(new Error('exporter stopped'));
      signal.addEventListener('abort', onAbort, { once: true });
      // The callback gets the error when the socket breaks before the bytes are out.
      socket.write(payload, (err) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (err) reject(new Error(`connection to ${this.settings.host}:${this.settings.port} broke: ${err.message}`, { cause: err }));
        else resolve();
      });
    });
  }

  /** The open connection, or a new one. */
  private async connection(): Promise<net.Socket> {
    if (this.socket && !this.socket.destroyed && this.socket.writable) return this.socket;
    const { host, port, tls, ca } = this.settings;
    const socket = await guardedConnect(this.policy, { host, port, tls: tls ? { ...(ca ? { ca } : {}) } : null }, CONNECT_TIMEOUT_MS);
    socket.setKeepAlive(true, 60_000);
    // Read (and drop) whatever the receiver sends, so that its closing the connection is seen ('end').
    socket.resume();
    const forget = () => {
      if (this.socket === socket) this.socket = null;
      socket.destroy();
    };
    socket.on('end', forget);
    socket.on('close', forget);
    socket.on('error', forget);
    this.socket = socket;
    return socket;
  }

  async close(): Promise<void> {
    this.socket?.destroy();
    this.socket = null;
  }
}

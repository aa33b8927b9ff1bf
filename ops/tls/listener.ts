// The HTTPS listener: serves the API's Koa app over TLS (1.2 and up) on
// CAIRN_TLS_PORT with the active certificate of the deployment's organization
// (CAIRN_ORG_ID). It polls the certificate table, so an activation made
// through any API process reaches every process within POLL_MS without a
// restart: a new certificate replaces the secure context of the running
// server (new handshakes use it; open connections keep theirs). With no
// active certificate at start, the listener opens once one is activated.
//
// Which listeners run is kept here, per process, because GET /v1/tls/status
// and DELETE /v1/tls/certificates/:id answer for the process serving the
// request (httpsServing()).
import https from 'node:https';
import type Koa from 'koa';
import type { Store } from '../../clickhouse/client.js';
import { activeCertificate, type StoredCertificate } from '../../clickhouse/tables/tls-certificates.js';
import type { Config } from '../../config/env.js';
import type { Logger } from '../../lib/logger.js';
import type { SecretBox } from '../../lib/secret-box.js';

/** How often each process looks for a newly activated certificate (the propagation delay, docs/tls.md). */
export const POLL_MS = 5000;
export const MIN_TLS_VERSION = 'TLSv1.2' as const;

export interface HttpsListenerOptions {
  app: Koa;
  store: Store;
  box: SecretBox;
  /** `operations.tlsPort` (unset: no listener), `host`, and `orgId`, whose active certificate is served. */
  config: Pick<Config, 'host' | 'orgId' | 'operations'>;
  logger: Logger;
  /** Poll interval; tests shorten it. */
  pollMs?: number;
}

export interface HttpsListener {
  /** The port HTTPS is served on; null while it is not (no port configured, no active certificate yet, or closed). */
  port(): number | null;
  /** The organization whose certificate is served. */
  readonly orgId: string;
  /** Id of the certificate new handshakes get; null while not serving. */
  servedCertificateId(): string | null;
  /** Looks at the active certificate now instead of at the next poll (the activating process calls it). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

const running = new Set<HttpsListener>();

/** The listener of this process that serves HTTPS for `orgId`, if any (normally there is one listener per process). */
export function httpsServing(orgId?: string): HttpsListener | null {
  for (const listener of running) if (listener.port() !== null && (orgId === undefined || listener.orgId === orgId)) return listener;
  return null;
}

/** Makes every listener of this process look at the active certificate now. */
export async function refreshHttpsListeners(): Promise<void> {
  await Promise.all([...running].map((l) => l.refresh()));
}

function secureOptions(cert: StoredCertificate, box: SecretBox): https.ServerOptions {
  return { cert: cert.chain_pem, key: box.open(cert.key_sealed), minVersion: MIN_TLS_VERSION };
}

export async function startHttpsListener({ app, store, box, config, logger, pollMs = POLL_MS }: HttpsListenerOptions): Promise<HttpsListener> {
  const configuredPort = config.operations.tlsPort;
  const orgId = config.orgId;
  let server: https.Server | null = null;
  let boundPort: number | null = null;
  let served: StoredCertificate | null = null;
  let closed = false;
  let warnedNoActive = false;
  // One check at a time: a poll and an activation's refresh must not both open the server.
  let checking: Promise<void> = Promise.resolve();

  async function open(cert: StoredCertificate): Promise<void> {
    const candidate = https.createServer(secureOptions(cert, box), app.callback());
    await new Promise<void>((resolve, reject) => {
      candidate.once('error', reject);
      candidate.listen(configuredPort, config.host, () => {
        candidate.off('error', reject);
        resolve();
      });
    });
    // A failed handshake (a client that does not trust the certificate, a port scan) is the client's problem, not an error of ours.
    candidate.on('tlsClientError', (err) => logger.debug({ err: err.message }, 'TLS handshake failed'));
    const address = candidate.address();
    server = candidate;
    boundPort = typeof address === 'object' && address ? address.port : configuredPort ?? null;
    logger.info({ port: boundPort, certificate: cert.id, subject: cert.subject, not_after: cert.not_after }, `API listening on https://${config.host}:${boundPort}/api`);
  }

  async function check(): Promise<void> {
    if (closed || configuredPort === undefined) return;
    const active = await activeCertificate(store, orgId);
    if (!active) {
      if (served && !warnedNoActive) logger.warn({ certificate: served.id }, 'no TLS certificate is active any more; HTTPS keeps serving the last one until another is activated');
      warnedNoActive = true;
      return;
    }
    warnedNoActive = false;
    if (served && active.id === served.id && active.fingerprint_sha256 === served.fingerprint_sha256) return;
    if (!server) {
      await open(active);
    } else {
      server.setSecureContext(secureOptions(active, box));
      logger.info({ certificate: active.id, subject: active.subject, not_after: active.not_after }, 'HTTPS certificate changed');
    }
    served = active;
  }

  function refresh(): Promise<void> {
    checking = checking.then(check).catch((err: unknown) => {
      // The next poll tries again (a store hiccup, a port that is still taken); the running server keeps its certificate.
      logger.error({ err }, 'HTTPS certificate check failed');
    });
    return checking;
  }

  // At start a failure to open the port stops the process, as for the HTTP port.
  if (configuredPort !== undefined) {
    await (checking = check());
  }
  const timer = configuredPort === undefined ? null : setInterval(() => void refresh(), pollMs);
  timer?.unref();

  const listener: HttpsListener = {
    orgId,
    port: () => (server && !closed ? boundPort : null),
    servedCertificateId: () => (server && !closed ? (served?.id ?? null) : null),
    refresh,
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      running.delete(listener);
      await checking;
      const open = server as https.Server | null;
      if (!open) return;
      open.closeAllConnections();
      await new Promise<void>((resolve) => open.close(() => resolve()));
    },
  };
  running.add(listener);
  if (configuredPort !== undefined && !server) logger.info({ port: configuredPort }, 'HTTPS waits for an active TLS certificate (POST /api/v1/tls/certificates)');
  return listener;
}

// Certificate expiry warnings: every API process looks at the stored
// certificates at start and then hourly, and a certificate within
// CAIRN_CERT_EXPIRY_WARN_DAYS of its not-after date (or past it) raises
// system.cert_expiring. A mark in hot state per certificate and UTC day makes
// that once a day per certificate however many processes look.
import type { Store } from '../../clickhouse/client.js';
import { activeCertificate, certificatesExpiringBefore, type StoredCertificate } from '../../clickhouse/tables/tls-certificates.js';
import type { Config } from '../../config/env.js';
import { stableId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { publish } from '../../pipeline/bus/consume.js';
import type { Bus } from '../../pipeline/bus/index.js';
import type { HotState } from '../../pipeline/state/index.js';
import { systemEvents, type SystemEvent } from '../../topics/index.js';
import { daysToExpiry } from './certificate.js';

export const EXPIRY_CHECK_MS = 60 * 60 * 1000;
const DAY_MS = 86_400_000;

export interface ExpiryDeps {
  store: Store;
  bus: Bus;
  state: HotState;
  config: Pick<Config, 'operations'>;
  logger: Logger;
}

function expiringEvent(cert: StoredCertificate, active: boolean, day: string, now: Date): SystemEvent {
  const days = daysToExpiry(cert.not_after, now);
  const when = days < 0 ? `expired on ${cert.not_after}` : `expires in ${days} day(s), on ${cert.not_after}`;
  return {
    id: stableId('system.cert_expiring', cert.id, day),
    type: 'system.cert_expiring',
    org_id: cert.org_id,
    occurred_at: now.toISOString(),
    severity: days < 0 ? 'error' : 'warning',
    summary: `TLS certificate ${cert.subject} ${when}${active ? ' (the active certificate)' : ''}`,
    details: {
      certificate_id: cert.id,
      subject: cert.subject,
      sans: cert.sans,
      fingerprint_sha256: cert.fingerprint_sha256,
      not_after: cert.not_after,
      days_to_expiry: days,
      active,
    },
  };
}

/** One look at the certificates; answers how many warnings this call raised. */
export async function checkCertificateExpiry({ store, bus, state, config }: ExpiryDeps, now = new Date()): Promise<number> {
  const warnBefore = new Date(now.getTime() + config.operations.certExpiryWarnDays * DAY_MS);
  const day = now.toISOString().slice(0, 10);
  const activeIds = new Map<string, string | null>();
  let raised = 0;
  for (const cert of await certificatesExpiringBefore(store, warnBefore)) {
    if (!activeIds.has(cert.org_id)) activeIds.set(cert.org_id, (await activeCertificate(store, cert.org_id))?.id ?? null);
    const mark = `tls:cert-expiring:${cert.id}:${day}`;
    // The mark outlives the day by one, so a process whose clock lags a little does not raise it again.
    if (!(await state.setIfAbsent(mark, '1', 2 * DAY_MS))) continue;
    try {
      await publish(bus, systemEvents, [expiringEvent(cert, activeIds.get(cert.org_id) === cert.id, day, now)]);
      raised++;
    } catch (err) {
      // Not raised: free the mark so the next look (this process or another) tries again.
      await state.delete(mark);
      throw err;
    }
  }
  return raised;
}

export interface ExpiryWatch {
  close(): Promise<void>;
}

/** Checks at start and every `everyMs` (an hour); a failed check is logged and tried again at the next. */
export function watchCertificateExpiry(deps: ExpiryDeps, everyMs = EXPIRY_CHECK_MS): ExpiryWatch {
  let running: Promise<unknown> = Promise.resolve();
  const look = () => {
    running = checkCertificateExpiry(deps)
      .then((raised) => raised > 0 && deps.logger.warn({ raised }, 'TLS certificates close to expiry: system.cert_expiring raised'))
      .catch((err: unknown) => deps.logger.error({ err }, 'TLS certificate expiry check failed'));
  };
  look();
  const timer = setInterval(look, everyMs);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}

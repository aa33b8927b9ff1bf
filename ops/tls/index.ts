// TLS for an API process (docs/tls.md): the HTTPS listener and the
// certificate expiry watch, started and stopped together by `cairn start`
// and `cairn api` beside the HTTP listener.
import type Koa from 'koa';
import type { Store } from '../../clickhouse/client.js';
import type { Config } from '../../config/env.js';
import type { Logger } from '../../lib/logger.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { Bus } from '../../pipeline/bus/index.js';
import type { HotState } from '../../pipeline/state/index.js';
import { watchCertificateExpiry } from './expiry.js';
import { startHttpsListener, type HttpsListener } from './listener.js';

export { checkCertificateExpiry, watchCertificateExpiry, EXPIRY_CHECK_MS } from './expiry.js';
export { httpsServing, MIN_TLS_VERSION, POLL_MS, refreshHttpsListeners, startHttpsListener, type HttpsListener, type HttpsListenerOptions } from './listener.js';

export interface TlsOptions {
  app: Koa;
  store: Store;
  bus: Bus;
  state: HotState;
  box: SecretBox;
  config: Config;
  logger: Logger;
}

export interface TlsServices {
  https: HttpsListener;
  close(): Promise<void>;
}

export async function startTls({ app, store, bus, state, box, config, logger }: TlsOptions): Promise<TlsServices> {
  const https = await startHttpsListener({ app, store, box, config, logger });
  const expiry = watchCertificateExpiry({ store, bus, state, config, logger });
  return {
    https,
    async close() {
      await Promise.all([https.close(), expiry.close()]);
    },
  };
}

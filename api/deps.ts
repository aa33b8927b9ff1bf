// What route handlers may use. The API reads through clickhouse table
// modules and writes through the bus; it never reaches into a stage.
import type { Config } from '../config/env.js';
import type { Store } from '../clickhouse/client.js';
import type { Logger } from '../lib/logger.js';
import type { Bus } from '../pipeline/bus/index.js';
import type { HotState } from '../pipeline/state/index.js';
import type { Identity } from '../identity/index.js';
import type { OutboundClient } from '../lib/outbound/client.js';
import type { IngestGate } from './ingest-gate.js';
import type { ProcessHealth } from '../ops/health/process-health.js';
import type { ApplianceConfigWatcher } from '../ops/appliance/runtime-config.js';
import type { BackfillRunner } from '../pipeline/leads/backfill-jobs.js';

/** What a process hands the API when it creates it. */
export interface ApiRuntime {
  config: Config;
  store: Store;
  bus: Bus;
  state: HotState;
  logger: Logger;
  health: ProcessHealth;
  appliance: ApplianceConfigWatcher;
  /** Lead-rule backfill jobs (pipeline/leads/backfill-jobs.ts). */
  backfills: BackfillRunner;
}

export interface ApiDeps extends ApiRuntime {
  ingestGate: IngestGate;
  identity: Identity;
  /** The one client for URLs users configure (IdP metadata, SSO checks; later webhooks and feeds). */
  outbound: OutboundClient;
}

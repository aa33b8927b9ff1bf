// What a stage is, and the registry `cairn worker <stage>` and `cairn start` use.
import type { Config } from '../config/env.js';
import type { Store } from '../clickhouse/client.js';
import type { LeadRow } from '../clickhouse/tables/leads.js';
import type { Observation } from '../clickhouse/tables/observations.js';
import type { EnrichedEvent, Lead } from '../topics/index.js';
import { isTransientClickHouseError } from '../clickhouse/errors.js';
import { isTransientError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { Bus, Subscription } from './bus/index.js';
import type { HotState } from './state/index.js';

/**
 * Findings made beside the lead rules for a batch of enriched events, written
 * with the rules' firings: threat intel matching (threatintel/matcher.ts),
 * wired in by the CLI so that the pipeline does not depend on it. It reads
 * only these parts of an event.
 */
export type EventFindings = (
  events: Pick<EnrichedEvent, 'artifact_id' | 'org_id' | 'source' | 'timestamp' | 'fields' | 'entities'>[],
) => Promise<{ observation: Observation; leadRow: LeadRow; lead: Lead }[]>;

export interface StageContext {
  config: Config;
  store: Store;
  bus: Bus;
  state: HotState;
  logger: Logger;
  findings?: EventFindings;
}

export interface Stage {
  /** Also the consumer group name. */
  name: string;
  /** The topic it consumes. */
  input: string;
  description: string;
  start(ctx: StageContext): Promise<Subscription>;
}

/** The subscription, and after it stops, what else the stage holds (a rule reloader, a worker pool). */
export function withCleanup(subscription: Subscription, cleanup: () => void | Promise<void>): Subscription {
  return {
    async stop() {
      await subscription.stop();
      await cleanup();
    },
  };
}

/** Transient for every stage: network, kafkajs retriable, and ClickHouse overload codes. */
export function isTransientStageError(err: unknown): boolean {
  return isTransientError(err) || isTransientClickHouseError(err);
}

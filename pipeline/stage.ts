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

/** What a finding writes beside the lead rules' firings: an observation, its lead row and the lead for the correlator. */
export interface FindingRecord {
  observation: Observation;
  leadRow: LeadRow;
  lead: Lead;
}

/** An event a worker's matcher found something in, with what it found (opaque to the pipeline). */
export interface WorkerHit<Hit = unknown> {
  event: EnrichedEvent;
  hit: Hit;
}

/**
 * Matching made beside the lead rules (threat intel: threatintel/matcher.ts),
 * wired in by the CLI so that the pipeline does not depend on what matches.
 * The staged topology's rule stage runs it whole on its thread (`findings`).
 * The analysis stage matches where the events are, on its worker threads:
 * each imports `workerModule` (whose default export is a WorkerMatching) and
 * loads the matcher's data, again whenever its generation moves on; the
 * hits come back here to become records (`fromHits`).
 */
export interface EventMatching {
  findings(events: EnrichedEvent[]): Promise<FindingRecord[]>;
  /** URL of a module whose default export is a WorkerMatching. */
  workerModule: string;
  /** Brings the data up to date: its generation, and the data itself for a worker that holds another generation. */
  current(): Promise<{ generation: number; data(): unknown }>;
  fromHits(hits: WorkerHit[]): Promise<FindingRecord[]>;
}

/** The worker side of an EventMatching: pure, over data the main thread sends. */
export interface WorkerMatching {
  load(data: unknown): void;
  match(events: EnrichedEvent[]): WorkerHit[];
}

export interface StageContext {
  config: Config;
  store: Store;
  bus: Bus;
  state: HotState;
  logger: Logger;
  /** Matching beside the lead rules, when the process has any (EventMatching). */
  matching?: EventMatching;
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

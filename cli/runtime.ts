// Opens what a cairn process needs (store with migrations applied, bus with
// topics created, hot state) and closes it in reverse order.
import type { Config } from '../config/env.js';
import { openStore, type Store } from '../clickhouse/client.js';
import { migrate } from '../clickhouse/migrate.js';
import { applyHistoryRetention, applyRetention } from '../clickhouse/retention.js';
import type { Logger } from '../lib/logger.js';
import { createBus, type Bus, type Subscription } from '../pipeline/bus/index.js';
import { findStage, STAGES, topicSpecs } from '../pipeline/stages.js';
import type { EventMatching } from '../pipeline/stage.js';
import { intelMatching } from '../threatintel/matcher.js';
import { createHotState, type HotState } from '../pipeline/state/index.js';
import { ProcessHealth } from '../ops/health/process-health.js';
import { ApplianceConfigWatcher } from '../ops/appliance/runtime-config.js';
import { BackfillRunner, DEFAULT_RUNNER_OPTIONS } from '../pipeline/leads/backfill-jobs.js';

export interface Runtime {
  config: Config;
  logger: Logger;
  store: Store;
  bus: Bus;
  state: HotState;
  /** The heartbeats of the services this process runs (docs/operations.md). */
  health: ProcessHealth;
  /** Applies the appliance config operators change at run time. */
  appliance: ApplianceConfigWatcher;
  /** Threat intel matching of enriched events, beside the lead rules (threatintel/matcher.ts). */
  matching: EventMatching;
  /** Lead-rule backfill jobs; the API's processes start its checks (docs/backfill.md). */
  backfills: BackfillRunner;
  close(): Promise<void>;
}

export async function openRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const store = await openStore(config);
  const applied = await migrate(store);
  if (applied.length > 0) logger.info({ migrations: applied.map((m) => m.id) }, 'migrations applied');
  const retained = await applyRetention(store, config.artifactRetentionDays);
  if (retained.length > 0) logger.info({ days: config.artifactRetentionDays, tables: retained }, 'retention changed');
  await applyHistoryRetention(store, config.operations.historyDays);
  const bus = await createBus(config, logger);
  await bus.ensureTopics(topicSpecs(config.pipeline.topology));
  const state = await createHotState(config);
  logger.info({ store: config.clickhouse.url ?? 'embedded chdb', bus: bus.kind, state: config.redisUrl ? 'redis' : 'local', topology: config.pipeline.topology }, 'runtime ready');
  const health = new ProcessHealth({ config, store, bus, state, logger });
  const appliance = new ApplianceConfigWatcher({ config, store, logger });
  await appliance.start();
  const backfills = new BackfillRunner({ store, bus, state, logger: logger.child({ component: 'backfill' }) }, { ...DEFAULT_RUNNER_OPTIONS, pageSize: config.backfill.pageSize });
  return {
    config,
    logger,
    store,
    bus,
    state,
    health,
    appliance,
    matching: intelMatching({ store, state, logger }),
    backfills,
    async close() {
      // Before what the jobs write to: each stops after its page in hand, to be resumed by the next process.
      await backfills.stop();
      appliance.stop();
      await health.close();
      await bus.close();
      await state.close();
      await store.close();
    },
  };
}

/** Starts the named stages on the runtime; each logs with its name. */
export async function startStages(runtime: Runtime, names: string[]): Promise<Subscription[]> {
  const subscriptions: Subscription[] = [];
  for (const name of names) {
    const stage = findStage(name);
    if (!stage) throw new Error(`unknown stage "${name}"; stages: ${STAGES.map((s) => s.name).join(', ')}`);
    const subscription = await stage.start({ ...runtime, logger: runtime.logger.child({ stage: name }) });
    await runtime.health.register(name, 'stage');
    subscriptions.push({
      ...subscription,
      async stop() {
        runtime.health.unregister(name);
        await subscription.stop();
      },
    });
    runtime.logger.info({ stage: name }, 'stage started');
  }
  return subscriptions;
}

// Lead-rule stage: enriched events against the enabled lead rules; each
// firing becomes an observation, a lead row and a message on `leads`.
import { listEnabledLeadRules } from '../../clickhouse/tables/lead-rules.js';
import { saveLeads } from '../../clickhouse/tables/leads.js';
import { saveObservations } from '../../clickhouse/tables/observations.js';
import { artifactsEnriched, leads } from '../../topics/index.js';
import { consume, publish } from '../bus/consume.js';
import type { Subscription } from '../bus/index.js';
import { isTransientStageError, type Stage } from '../stage.js';
import { currentNotice } from '../state/index.js';
import { evaluateBatch } from './evaluate.js';
import { firingRecords } from './firing-records.js';
import { RuleSet } from './rules.js';

export const leadsStage: Stage = {
  name: 'leads',
  description: 'applies lead rules to enriched events: observations and leads',
  async start(ctx) {
    const rules = new RuleSet(
      () => listEnabledLeadRules(ctx.store),
      () => currentNotice(ctx.state, 'lead-rules'),
      ctx.logger,
      ctx.config.pipeline.ruleRefreshMs,
    );
    await rules.start();
    const subscription = await consume({
      bus: ctx.bus,
      topic: artifactsEnriched,
      group: 'leads',
      logger: ctx.logger,
      maxBatchSize: 2000,
      maxWaitMs: 50,
      isTransient: isTransientStageError,
      handle: async (batch) => {
        await rules.ensureCurrent();
        const evaluation = await evaluateBatch(
          batch.map((e) => e.value),
          (orgId) => rules.rulesFor(orgId),
          ctx.state,
        );
        if (evaluation.firings.length === 0) return;
        const now = new Date().toISOString();
        const records = evaluation.firings.map((f) => firingRecords(f, now));
        await saveObservations(ctx.store, records.map((r) => r.observation));
        await saveLeads(ctx.store, records.map((r) => r.leadRow));
        await publish(ctx.bus, leads, records.map((r) => r.lead));
        await evaluation.markEmitted();
      },
    });
    const stopping: Subscription = {
      async stop() {
        rules.stop();
        await subscription.stop();
      },
    };
    return stopping;
  },
};

// Lead-rule stage: enriched events against the enabled lead rules; each
// firing becomes an observation, a lead row and a message on `leads`.
import { listEnabledLeadRules } from '../../clickhouse/tables/lead-rules.js';
import { saveLeads } from '../../clickhouse/tables/leads.js';
import { saveObservations } from '../../clickhouse/tables/observations.js';
import { artifactsEnriched, leads, type EnrichedEvent } from '../../topics/index.js';
import { consume, publish } from '../bus/consume.js';
import { isTransientStageError, withCleanup, type FindingRecord, type Stage, type StageContext } from '../stage.js';
import { currentNotice } from '../state/index.js';
import { evaluateMatches, findMatches, type Match } from './evaluate.js';
import { firingRecords } from './firing-records.js';
import { RuleSet } from './rules.js';

export const leadsStage: Stage = {
  name: 'leads',
  description: 'applies lead rules to enriched events: observations and leads',
  input: artifactsEnriched.name,
  async start(ctx) {
    const rules = leadRuleSet(ctx);
    await rules.start();
    const subscription = await consume({
      bus: ctx.bus,
      topic: artifactsEnriched,
      group: 'leads',
      logger: ctx.logger,
      maxBatchSize: 2000,
      maxWaitMs: 50,
      isTransient: isTransientStageError,
      handle: async (batch) => raiseLeads(ctx, rules, batch.map((e) => e.value)),
    });
    return withCleanup(subscription, () => rules.stop());
  },
};

/** The enabled lead rules, reloaded every ruleRefreshMs and when a rule changes; start() before use. */
export function leadRuleSet(ctx: StageContext): RuleSet {
  return new RuleSet(
    () => listEnabledLeadRules(ctx.store),
    () => currentNotice(ctx.state, 'lead-rules'),
    ctx.logger,
    () => ctx.config.pipeline.ruleRefreshMs,
  );
}

/** The rule stage's work on enriched events: firings (and other findings, e.g. threat intel hits) become observations, lead rows and `leads` messages. */
export async function raiseLeads(ctx: StageContext, rules: RuleSet, events: EnrichedEvent[]): Promise<void> {
  await rules.ensureCurrent();
  const found = (await ctx.matching?.findings(events)) ?? [];
  await raiseMatches(ctx, findMatches(events, (orgId) => rules.rulesFor(orgId)), found);
}

/**
 * Rule matches (found here or on a worker) to firings, written with the
 * other findings of the batch (threat intel hits) as observations, lead rows
 * and `leads` messages.
 */
export async function raiseMatches(ctx: StageContext, matches: Match[], found: FindingRecord[]): Promise<void> {
  const evaluation = matches.length > 0 ? await evaluateMatches(matches, ctx.state) : null;
  const firings = evaluation?.firings ?? [];
  if (firings.length > 0 || found.length > 0) {
    const now = new Date().toISOString();
    await writeFindings(ctx, [...firings.map((f) => firingRecords(f, now)), ...found]);
  }
  // Also without firings: values seen (first_seen) are remembered here, after the writes.
  await evaluation?.markEmitted();
}

/** Writes findings (firings, intel hits at ingest or a retro-hunt's): their observations, then lead rows, then the `leads` messages for the correlator. */
export async function writeFindings(parts: Pick<StageContext, 'store' | 'bus'>, records: FindingRecord[]): Promise<void> {
  await saveObservations(parts.store, records.map((r) => r.observation));
  await saveLeads(parts.store, records.map((r) => r.leadRow));
  await publish(parts.bus, leads, records.map((r) => r.lead));
}

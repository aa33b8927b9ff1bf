// Analysis stage (the fused topology): one consumer of artifacts.raw doing
// the parser's, the enricher's and the rule stage's work. The CPU-bound part
// (decode, parse, GeoIP, graph extraction) runs on worker threads
// (pool.ts); this thread writes what comes back, evaluates the lead rules
// (their windows live in hot state) and commits once after every write.
import { artifactsRaw } from '../../topics/index.js';
import type { DeliveredMessage } from '../bus/index.js';
import { consume } from '../bus/consume.js';
import { writeGraph } from '../enricher/consumer.js';
import { leadRuleSet, raiseLeads, stopping } from '../leads/consumer.js';
import { writeParsed } from '../parser/consumer.js';
import { isTransientStageError, type Stage } from '../stage.js';
import { createAnalysisPool } from './pool.js';

export const analysisStage: Stage = {
  name: 'analysis',
  description: 'parses, enriches and applies lead rules in one pass over raw artifacts, on worker threads',
  input: artifactsRaw.name,
  async start(ctx) {
    const pool = createAnalysisPool(ctx.config.pipeline.workers);
    const rules = leadRuleSet(ctx);
    await rules.start();
    const subscription = await consume<DeliveredMessage>({
      bus: ctx.bus,
      topic: artifactsRaw,
      group: 'analysis',
      logger: ctx.logger,
      maxBatchSize: 5000,
      maxWaitMs: 50,
      // The bytes go to a worker as they are: decoding is part of its work.
      decode: (message) => message,
      isTransient: isTransientStageError,
      handle: async (batch) => {
        const messages = batch.map((e) => e.message);
        const result = await pool.run({
          messages,
          defaultOrgId: ctx.config.orgId,
          timezone: ctx.config.logTimezone,
          schemaRegistryUrl: ctx.config.schemaRegistryUrl,
        });
        await writeParsed(ctx, result);
        await writeGraph(ctx.store, result);
        await raiseLeads(ctx, rules, result.events);
        return { deadLetters: result.rejected.map(({ index, reason }) => ({ message: messages[index]!, reason })) };
      },
    });
    const both = stopping(rules, subscription);
    return {
      async stop() {
        await both.stop();
        await pool.close();
      },
    };
  },
};

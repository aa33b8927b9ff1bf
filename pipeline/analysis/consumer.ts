// Analysis stage (the fused topology): one consumer of artifacts.raw doing
// the parser's, the enricher's and the rule stage's work. The CPU-bound part
// (decode, parse, GeoIP, graph extraction, rule matching) runs on worker threads
// (pool.ts); this thread writes what comes back, counts the rules' matches
// (their windows live in hot state) and commits once after every write.
import { insertEncoded } from '../../clickhouse/encoded-rows.js';
import { artifactsRaw, systemEvents } from '../../topics/index.js';
import type { DeliveredMessage } from '../bus/index.js';
import { consume, publish, type DeadLetter } from '../bus/consume.js';
import { leadRuleSet, raiseMatches } from '../leads/consumer.js';
import { isTransientStageError, withCleanup, type Stage } from '../stage.js';
import { createAnalysisPool } from './pool.js';

/** Messages per task sent to a worker. */
const CHUNK = 2500;

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
      maxBatchSize: 10_000,
      maxWaitMs: 50,
      // The bytes go to a worker as they are: decoding is part of its work.
      decode: (message) => message,
      isTransient: isTransientStageError,
      handle: async (batch) => {
        // Rules changed before the batch apply to it; the workers get them with each chunk.
        await rules.ensureCurrent();
        const ruleSnapshot = rules.snapshot();
        const messages = batch.map((e) => e.message);
        // The batch goes to the pool in chunks, all at once: while this thread writes what one chunk gave,
        // a worker analyses the next. Writes stay in message order; the commit covers the whole batch.
        const chunks = Array.from({ length: Math.ceil(messages.length / CHUNK) }, (_, i) => messages.slice(i * CHUNK, (i + 1) * CHUNK));
        const analyses = chunks.map((chunk) =>
          pool.run({ messages: chunk, defaultOrgId: ctx.config.orgId, timezone: ctx.config.logTimezone, schemaRegistryUrl: ctx.config.schemaRegistryUrl, rules: ruleSnapshot }),
        );
        // A write failing below leaves later analyses unawaited: their failures are the batch's, already thrown.
        for (const analysis of analyses) analysis.catch(() => {});
        const deadLetters: DeadLetter[] = [];
        for (const [i, analysis] of analyses.entries()) {
          const result = await analysis;
          for (const rows of result.inserts) await insertEncoded(ctx.store, rows);
          await publish(ctx.bus, systemEvents, result.failureEvents);
          // A rule deleted since the chunk left has no more matches.
          const matches = result.matches.flatMap(({ rule, event, at, keys }) => {
            const compiled = rules.rule(rule);
            return compiled ? [{ rule: compiled, event: result.matchedEvents[event]!, at, keys }] : [];
          });
          await raiseMatches(ctx, matches);
          for (const { index, reason } of result.rejected) deadLetters.push({ message: chunks[i]![index]!, reason });
        }
        return { deadLetters };
      },
    });
    return withCleanup(subscription, async () => {
      rules.stop();
      await pool.close();
    });
  },
};

// Analysis stage (the fused topology): one consumer of artifacts.raw doing
// the parser's, the enricher's and the rule stage's work. The CPU-bound part
// (decode, parse, GeoIP, graph extraction, rule matching) runs on worker threads
// (pool.ts); this thread writes what comes back, counts the rules' matches
// (their windows live in hot state) and commits once after every write.
import { concatRows, insertEncoded, type EncodedTable } from '../../clickhouse/encoded-rows.js';
import { withoutStoredEvents } from '../../clickhouse/tables/replays.js';
import { allOrFirstFailure } from '../../lib/settle.js';
import { artifactsRaw, systemEvents } from '../../topics/index.js';
import type { DeliveredMessage } from '../bus/index.js';
import { consume, publish, type DeadLetter } from '../bus/consume.js';
import { leadRuleSet, raiseMatches } from '../leads/consumer.js';
import { userDecoderList } from '../parser/consumer.js';
import { isTransientStageError, withCleanup, type EventMatching, type Stage } from '../stage.js';

type MatchingData = Awaited<ReturnType<EventMatching['current']>>;
import type { AnalysisResult, AnalysisTask } from './analyse.js';
import { AuditJoinWriter } from './audit-join-writer.js';
import { packMessages } from './packed-messages.js';
import { createAnalysisPool, type AnalysisPool } from './pool.js';

/**
 * Messages per task sent to a worker. A batch of 10,000 goes as two: the
 * second is analysed while the first is written. Larger inserts cost the
 * engine less a row (events: about 25 µs at 2,500 rows, 20 at 5,000), and
 * at 20,000/s offered 5,000 analysed 10,000-10,450 artifacts/s through
 * every stage against 9,200-11,300 for 2,500 and 9,350-9,750 for 10,000.
 */
const CHUNK = 5000;

/**
 * The tables a batch writes once, its chunks' rows together. A chunk of
 * 5,000 gives a few hundred node rows, and an insert costs the engine
 * 13-29 ms of CPU whatever its size (a new part of 12-21 files); written
 * per chunk, node and edge sightings took 3-5 and 7 µs of engine CPU an
 * artifact, per 10,000 2 and 2.5 (bench/store-cost.ts; bench/README.md,
 * "fifteenth pass").
 */
const SIGHTINGS: EncodedTable[] = ['nodes', 'edge_sightings'];

/**
 * A chunk's analysis on the pool. A worker holding another generation of the
 * matching data answers "stale" (pipeline/analysis/analyse.ts), and gets the
 * chunk again with the data.
 */
async function analyseChunk(pool: AnalysisPool, task: AnalysisTask, matching: { spec: EventMatching; current: MatchingData } | null): Promise<AnalysisResult> {
  const spec = matching ? { module: matching.spec.workerModule, generation: matching.current.generation } : undefined;
  const outcome = await pool.run({ ...task, matching: spec });
  // Only a task naming a matcher can be stale.
  if (outcome !== 'stale') return outcome;
  const again = await pool.run({ ...task, matching: { ...spec!, data: matching!.current.data() } });
  if (again === 'stale') throw new Error('an analysis worker stayed stale with the matching data sent');
  return again;
}

export const analysisStage: Stage = {
  name: 'analysis',
  description: 'parses, enriches and applies lead rules in one pass over raw artifacts, on worker threads',
  input: artifactsRaw.name,
  async start(ctx) {
    const pool = createAnalysisPool(ctx.config.pipeline.workers);
    const rules = leadRuleSet(ctx);
    const decoders = userDecoderList(ctx);
    await Promise.all([rules.start(), decoders.start()]);
    const auditJoin = new AuditJoinWriter({ state: ctx.state, store: ctx.store, group: 'analysis', topic: artifactsRaw.name });
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
      writeMarks: ctx.state,
      handle: async (batch, { mayRepeat }) => {
        // Rules, decoders and matching data changed before the batch apply to it; the workers get the rules
        // and decoders with each chunk, and the matching data when they hold another generation of it.
        await Promise.all([rules.ensureCurrent(), decoders.ensureCurrent()]);
        const ruleSnapshot = rules.snapshot();
        const decoderSnapshot = decoders.snapshot();
        const matching = ctx.matching ? { spec: ctx.matching, current: await ctx.matching.current() } : null;
        const messages = batch.map((e) => e.message);
        // The batch goes to the pool in chunks, all at once, and each chunk's events are written as soon as it
        // comes back: while this thread writes what one chunk gave, a worker analyses the next (and several
        // workers share a batch). The batch's node and edge sightings are written once, beside the last chunk's
        // events: every insert costs the engine a new part whatever its size (SIGHTINGS). Nothing depends on the
        // order of these writes (sightings fold into one row per id, and the chunks hold different artifacts);
        // the batch is committed only after all of them.
        const chunks = Array.from({ length: Math.ceil(messages.length / CHUNK) }, (_, i) => messages.slice(i * CHUNK, (i + 1) * CHUNK));
        const analysed = chunks.map((chunk) =>
          analyseChunk(
            pool,
            { messages: packMessages(chunk), defaultOrgId: ctx.config.orgId, timezone: ctx.config.logTimezone, schemaRegistryUrl: ctx.config.schemaRegistryUrl, rules: ruleSnapshot, decoders: decoderSnapshot },
            matching,
          ),
        );
        // Sightings fold into one row per id (edges count distinct artifacts): only events would double.
        const eventsWritten = analysed.map(async (result) => {
          for (const rows of (await result).inserts) {
            if (rows.table === 'events') await insertEncoded(ctx.store, mayRepeat ? await withoutStoredEvents(ctx.store, rows) : rows);
          }
        });
        const sightingsWritten = allOrFirstFailure(analysed).then(async (results) => {
          await allOrFirstFailure(
            SIGHTINGS.map(async (table) => {
              const parts = results.flatMap((result) => result.inserts.filter((rows) => rows.table === table));
              if (parts.length > 0) await insertEncoded(ctx.store, concatRows(parts));
            }),
          );
          return results;
        });
        await allOrFirstFailure<unknown>([...eventsWritten, sightingsWritten]);
        const results = await sightingsWritten;
        // The records of one audit event, joined once its records are in (audit-join-writer.ts), before the commit.
        await auditJoin.handle(batch[0]!.message.partition, results.flatMap((r) => r.auditRecords));
        await publish(ctx.bus, systemEvents, results.flatMap((r) => r.failureEvents));
        // A rule deleted since the batch left has no more matches.
        const matches = results.flatMap((result) =>
          result.matches.flatMap(({ rule, event, at, keys }) => {
            const compiled = rules.rule(rule);
            return compiled ? [{ rule: compiled, event: result.ruleEvents[event]!, at, keys }] : [];
          }),
        );
        const hits = results.flatMap((result) => result.hits.map(({ event, hit }) => ({ event: result.matchedEvents[event]!, hit })));
        const found = matching && hits.length > 0 ? await matching.spec.fromHits(hits) : [];
        await raiseMatches(ctx, matches, found);
        const deadLetters: DeadLetter[] = results.flatMap((result, i) => result.rejected.map(({ index, reason }) => ({ message: chunks[i]![index]!, reason })));
        return { deadLetters };
      },
    });
    return withCleanup(subscription, async () => {
      rules.stop();
      decoders.stop();
      await pool.close();
    });
  },
};

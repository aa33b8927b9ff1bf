// Parser stage: artifacts.raw to parsed events (events table and
// artifacts.parsed); what does not parse goes to the DLQ and raises parser.failure.
import { insertEvents } from '../../clickhouse/tables/events.js';
import { artifactsParsed, artifactsRaw, systemEvents } from '../../topics/index.js';
import { createArtifactDecoder } from '../artifacts.js';
import { consume, publish } from '../bus/consume.js';
import { isTransientStageError, type Stage, type StageContext } from '../stage.js';
import { loadGeoIp } from '../geoip/geoip.js';
import { parseBatch, type ParseOutcome } from './parse-batch.js';

/** The parser's writes: the events table, and a parser.failure system event per artifact that did not parse. */
export async function writeParsed(ctx: StageContext, outcome: Pick<ParseOutcome, 'events' | 'failureEvents'>): Promise<void> {
  await insertEvents(
    ctx.store,
    outcome.events.map((e) => ({
      ...e,
      event_time: typeof e.fields['@timestamp'] === 'string' ? e.fields['@timestamp'] : undefined,
      created_at: e.received_at,
    })),
  );
  await publish(ctx.bus, systemEvents, outcome.failureEvents);
}

export const parserStage: Stage = {
  name: 'parser',
  description: 'parses raw artifacts into ECS events',
  input: artifactsRaw.name,
  async start(ctx) {
    const decode = await createArtifactDecoder(ctx.config.schemaRegistryUrl, ctx.logger);
    const geo = loadGeoIp(ctx.logger);
    return consume({
      bus: ctx.bus,
      topic: artifactsRaw,
      group: 'parser',
      logger: ctx.logger,
      maxBatchSize: 5000,
      maxWaitMs: 50,
      decode,
      isTransient: isTransientStageError,
      handle: async (batch) => {
        const outcome = parseBatch(batch, { defaultOrgId: ctx.config.orgId, timezone: ctx.config.logTimezone, geo });
        await writeParsed(ctx, outcome);
        await publish(ctx.bus, artifactsParsed, outcome.events);
        return { deadLetters: outcome.deadLetters };
      },
    });
  },
};

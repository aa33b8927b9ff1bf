// Parser stage: artifacts.raw to parsed events (events table and
// artifacts.parsed); what does not parse goes to the DLQ and raises parser.failure.
// Organizations' own decoders apply from the batch after they change.
import { insertEncoded } from '../../clickhouse/encoded-rows.js';
import { withoutStoredEvents } from '../../clickhouse/tables/replays.js';
import { artifactsParsed, artifactsRaw, systemEvents } from '../../topics/index.js';
import { createArtifactDecoder } from '../artifacts.js';
import { consume, publish } from '../bus/consume.js';
import { isTransientStageError, withCleanup, type Stage, type StageContext } from '../stage.js';
import { loadGeoIp } from '../geoip/geoip.js';
import { encodeParsedEvents, parseBatch } from './parse-batch.js';
import { auditRecordOf } from '../analysis/audit-join.js';
import { allDecoders, type StoredDecoder } from '../../clickhouse/tables/user-decoders.js';
import { currentNotice } from '../state/index.js';
import { WatchedList } from '../state/watched-list.js';
import { UserDecoders } from './decoders/user.js';
import { AuditJoinWriter } from '../analysis/audit-join-writer.js';

export const parserStage: Stage = {
  name: 'parser',
  description: 'parses raw artifacts into ECS events',
  input: artifactsRaw.name,
  async start(ctx) {
    const decode = await createArtifactDecoder(ctx.config.schemaRegistryUrl, ctx.logger);
    const geo = loadGeoIp(ctx.logger);
    // The staged topology writes the same joined audit events as the analysis stage does.
    const auditJoin = new AuditJoinWriter({ state: ctx.state, store: ctx.store, group: 'parser', topic: artifactsRaw.name });
    const compiled = new UserDecoders((decoder, err) => ctx.logger.warn({ decoder: decoder.id, service: decoder.service, err: err.message }, 'user decoder does not compile; skipped'));
    const decoders = userDecoderList(ctx, (list) => compiled.update(list));
    await decoders.start();
    const subscription = await consume({
      bus: ctx.bus,
      topic: artifactsRaw,
      group: 'parser',
      logger: ctx.logger,
      maxBatchSize: 5000,
      maxWaitMs: 50,
      decode,
      isTransient: isTransientStageError,
      writeMarks: ctx.state,
      handle: async (batch, { mayRepeat }) => {
        await decoders.ensureCurrent();
        const outcome = parseBatch(batch, { defaultOrgId: ctx.config.orgId, timezone: ctx.config.logTimezone, geo, decoders: (orgId) => compiled.forOrg(orgId) });
        const rows = encodeParsedEvents(outcome.events);
        await insertEncoded(ctx.store, mayRepeat ? await withoutStoredEvents(ctx.store, rows) : rows);
        await auditJoin.handle(batch[0]!.message.partition, outcome.events.flatMap((e) => auditRecordOf(e) ?? []));
        await publish(ctx.bus, systemEvents, outcome.failureEvents);
        await publish(ctx.bus, artifactsParsed, outcome.events);
        return { deadLetters: outcome.deadLetters };
      },
    });
    return withCleanup(subscription, () => decoders.stop());
  },
};

/**
 * Every organization's own decoders, reloaded when the API announces a
 * change and every ruleRefreshMs, as lead rules are; start() before use.
 */
export function userDecoderList(ctx: StageContext, onLoad?: (decoders: StoredDecoder[]) => void): WatchedList<StoredDecoder> {
  return new WatchedList({
    what: 'user decoders',
    load: () => allDecoders(ctx.store),
    notice: () => currentNotice(ctx.state, 'decoders'),
    logger: ctx.logger,
    refreshMs: () => ctx.config.pipeline.ruleRefreshMs,
    onLoad,
  });
}

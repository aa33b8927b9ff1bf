// Store stage: artifacts.raw to the artifacts table, in large batches.
import { artifactsRaw } from '../../topics/index.js';
import { createArtifactDecoder } from '../artifacts.js';
import { consume } from '../bus/consume.js';
import { isTransientStageError, type Stage } from '../stage.js';
import { storeArtifacts } from './store-artifacts.js';

export const storeStage: Stage = {
  name: 'store',
  description: 'writes raw artifacts to ClickHouse so they are searchable',
  input: artifactsRaw.name,
  async start(ctx) {
    const decode = await createArtifactDecoder(ctx.config.schemaRegistryUrl, ctx.logger);
    return consume({
      bus: ctx.bus,
      topic: artifactsRaw,
      group: 'store',
      logger: ctx.logger,
      maxBatchSize: ctx.config.pipeline.storeBatchSize,
      maxWaitMs: ctx.config.pipeline.storeBatchWaitMs,
      decode,
      isTransient: isTransientStageError,
      writeMarks: ctx.state,
      handle: async (batch, { mayRepeat }) => {
        const { replayed } = await storeArtifacts(ctx.store, batch, ctx.config.orgId, mayRepeat);
        if (replayed > 0) ctx.logger.info({ replayed }, 'skipped artifacts stored by an earlier delivery');
      },
    });
  },
};

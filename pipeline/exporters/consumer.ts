// Exporters stage: forwards the artifacts that match each enabled exporter's
// query to its destination (runner.ts), in the embedded process and as
// `cairn worker exporters`.
//
// The stage's own consumer group, `exporters`, reads system.events, not
// artifacts.raw: the API announces every exporter change there
// (system.config_changed, setting "exporters"), and the stage applies it at
// once. Each exporter reads artifacts.raw in its own group `exporter-<id>`,
// deliberately not the stage's declared input: ingest backpressure and the
// in-process bus's declared consumers follow the stages' inputs
// (pipeline/stages.ts consumersOf), and an exporter whose destination is down
// must not stop ingest. Exporter lag is its own metric, svc_exporter_lag_messages.
import { errorMessage } from '../../lib/errors.js';
import { systemEvents } from '../../topics/index.js';
import { consume } from '../bus/consume.js';
import { isTransientStageError, withCleanup, type Stage } from '../stage.js';
import { EXPORTERS_STAGE, ExporterRunner } from './runner.js';

/** The `setting` of the system.config_changed events the exporter routes raise. */
export const EXPORTERS_SETTING = 'exporters';

export const exportersStage: Stage = {
  name: EXPORTERS_STAGE,
  description: 'forwards matching artifacts to each enabled exporter (syslog, HTTP, Kafka), each exporter its own consumer group on artifacts.raw',
  input: systemEvents.name,
  async start(ctx) {
    const runner = new ExporterRunner(ctx);
    // Before returning: in `cairn start` this stage starts first, so every exporter's group is
    // subscribed (and so kept by the in-process bus's retention) before any other stage commits.
    await runner.start();
    const subscription = await consume({
      bus: ctx.bus,
      topic: systemEvents,
      group: EXPORTERS_STAGE,
      logger: ctx.logger,
      maxBatchSize: 100,
      maxWaitMs: 50,
      isTransient: isTransientStageError,
      handle: async (batch) => {
        const changed = batch.some(({ value }) => value.type === 'system.config_changed' && value.details.setting === EXPORTERS_SETTING);
        if (!changed) return;
        // A failed reload must not dead-letter the event: the periodic reload applies the change.
        await runner.reload().catch((err: unknown) => ctx.logger.warn({ err: errorMessage(err) }, 'could not reload the exporters after a change; the next periodic reload will'));
      },
    });
    return withCleanup(subscription, () => runner.stop());
  },
};

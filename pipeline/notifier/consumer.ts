// Notifier stage: system events (SPEC 6) to the channels of the rules that
// subscribe to them, with cooldowns and a delivery history (notifier.ts).
// One consumer group on system.events, in the embedded process and as
// `cairn worker notifier`.
import { systemEvents } from '../../topics/index.js';
import { consume } from '../bus/consume.js';
import { isTransientStageError, type Stage } from '../stage.js';
import { Notifier } from './notifier.js';

export const notifierStage: Stage = {
  name: 'notifier',
  description: 'delivers system events to notification channels by rule, with cooldowns and a history',
  input: systemEvents.name,
  async start(ctx) {
    const notifier = new Notifier(ctx);
    return consume({
      bus: ctx.bus,
      topic: systemEvents,
      group: 'notifier',
      logger: ctx.logger,
      maxBatchSize: 50,
      maxWaitMs: 50,
      isTransient: isTransientStageError,
      // In order: a rule's cooldown is opened by the first event of a burst.
      handle: async (batch) => {
        for (const { value } of batch) await notifier.handle(value);
      },
    });
  },
};

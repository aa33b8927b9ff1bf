// Correlator stage: leads into incidents. Leads are keyed by organization,
// so one worker handles an organization's leads, in order.
import { leads } from '../../topics/index.js';
import { consume } from '../bus/consume.js';
import { isTransientStageError, type Stage } from '../stage.js';
import { correlateLead } from './correlate.js';

export const correlatorStage: Stage = {
  name: 'correlator',
  description: 'groups leads that share entities into incidents',
  input: leads.name,
  async start(ctx) {
    return consume({
      bus: ctx.bus,
      topic: leads,
      group: 'correlator',
      logger: ctx.logger,
      maxBatchSize: 200,
      maxWaitMs: 20,
      isTransient: isTransientStageError,
      handle: async (batch) => {
        for (const { value: lead } of batch) {
          const { incidentId, created } = await correlateLead(ctx.store, lead, ctx.config.correlation, new Date().toISOString());
          if (created) ctx.logger.info({ incident: incidentId, lead: lead.id, rule: lead.rule_name }, 'incident opened');
        }
      },
    });
  },
};

// Correlator stage: leads into incidents. Leads are keyed by organization,
// so one worker handles an organization's leads, in order.
import { severityRank } from '../../clickhouse/severity.js';
import { stableId } from '../../lib/ids.js';
import { leads, systemEvents, type SystemEvent } from '../../topics/index.js';
import { consume, publish } from '../bus/consume.js';
import { isTransientStageError, type Stage } from '../stage.js';
import { correlateLeads, type CorrelationOutcome } from './correlate.js';

const EVENT_SEVERITY = { low: 'info', medium: 'warning', high: 'error', critical: 'error' } as const;

/**
 * incident.created when a lead opens an incident, incident.severity_raised
 * when one raises it (cairn extensions of SPEC 6, for notification rules).
 * Ids are derived, so a replayed lead raises the same event again and the
 * notifier recognises it.
 */
export function incidentEvent({ incident, created, previousSeverity }: CorrelationOutcome): SystemEvent | null {
  const raised = previousSeverity !== null && severityRank(incident.severity) > severityRank(previousSeverity);
  if (!created && !raised) return null;
  const details = { incident_id: incident.id, title: incident.title, severity: incident.severity, node_count: incident.node_count, first_seen: incident.first_seen, last_seen: incident.last_seen };
  return {
    id: created ? stableId(incident.id, 'incident.created') : stableId(incident.id, 'incident.severity_raised', incident.severity),
    type: created ? 'incident.created' : 'incident.severity_raised',
    org_id: incident.org_id,
    occurred_at: incident.updated_at,
    severity: EVENT_SEVERITY[incident.severity],
    summary: created ? `incident opened (${incident.severity}): ${incident.title}` : `incident severity raised from ${previousSeverity} to ${incident.severity}: ${incident.title}`,
    details: raised ? { ...details, previous_severity: previousSeverity } : details,
  };
}

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
        const batchLeads = batch.map(({ value }) => value);
        const outcomes = await correlateLeads(ctx.store, batchLeads, ctx.config.correlation, new Date().toISOString());
        const events: SystemEvent[] = [];
        outcomes.forEach((outcome, n) => {
          if (outcome.created) ctx.logger.info({ incident: outcome.incidentId, lead: batchLeads[n]!.id, rule: batchLeads[n]!.rule_name }, 'incident opened');
          const event = incidentEvent(outcome);
          if (event) events.push(event);
        });
        // After the incident rows: a notification names an incident that exists.
        await publish(ctx.bus, systemEvents, events);
      },
    });
  },
};

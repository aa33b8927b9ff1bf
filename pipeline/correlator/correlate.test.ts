import { describe, expect, it } from 'vitest';
import { joinNode, type LeadSpan } from './correlate.js';
import { incidentEvent } from './consumer.js';

const bounds = { windowMs: 3_600_000, maxSpanMs: 12 * 3_600_000, maxLeads: 5, hubLimit: 2 };
const at = (hour: number) => new Date(Date.UTC(2026, 10, 20) + hour * 3_600_000).toISOString();
const lead = (hour: number, ...nodes: string[]): LeadSpan => ({ node_ids: nodes, first_seen: at(hour), last_seen: at(hour) });
const isAddress = (id: string) => id.startsWith('ip');

describe('joinNode', () => {
  it('joins through a shared node within the window on either side', () => {
    expect(joinNode(lead(10, 'ip1', 'host'), [lead(9.5, 'ip2', 'host')], isAddress, bounds)).toBe('host');
    expect(joinNode(lead(9, 'ip1', 'host'), [lead(9.5, 'ip2', 'host')], isAddress, bounds)).toBe('host');
  });

  it('does not join leads further apart than the window, in either order', () => {
    expect(joinNode(lead(12, 'ip1', 'root'), [lead(9, 'ip2', 'root')], isAddress, bounds)).toBeNull();
    expect(joinNode(lead(6, 'ip1', 'root'), [lead(9, 'ip2', 'root')], isAddress, bounds)).toBeNull();
  });

  it('stops joining through a node once the leads through it would name more than hubLimit other addresses', () => {
    const members = [lead(1, 'ip1', 'host'), lead(1.5, 'ip2', 'host')];
    expect(joinNode(lead(2, 'ip3', 'host'), members, isAddress, bounds)).toBeNull();
    // The same attacker again adds no address: it joins (through its own address, shared too).
    expect(joinNode(lead(2, 'ip2', 'host'), members, isAddress, bounds)).not.toBeNull();
    expect(joinNode(lead(2, 'host', 'ip2'), members, isAddress, bounds)).toBe('host');
  });

  it('starts a new incident past the maximum span or lead count', () => {
    const longRunning = [lead(0, 'ip1'), lead(11.5, 'ip1')];
    expect(joinNode(lead(12.5, 'ip1'), longRunning, isAddress, bounds)).toBeNull();
    const full = [1, 2, 3, 4, 5].map((h) => lead(h / 10, 'ip1'));
    expect(joinNode(lead(0.6, 'ip1'), full, isAddress, bounds)).toBeNull();
    expect(joinNode(lead(0.6, 'ip1'), full.slice(1), isAddress, bounds)).toBe('ip1');
  });
});

describe('incident events', () => {
  const incident = { id: '01930000-0000-7000-8000-000000000001', org_id: 'o', title: 'SSH brute force against web01', severity: 'high' as const, artifact_count: 3, node_count: 2, node_ids: [], observation_ids: [], first_seen: '2026-01-01T00:00:00.000Z', last_seen: '2026-01-01T00:10:00.000Z', created_at: '2026-01-01T00:10:00.000Z', updated_at: '2026-01-01T00:10:00.000Z' };

  it('names a new incident, a raised severity, and nothing else, with ids a replay repeats', () => {
    const created = incidentEvent({ incidentId: incident.id, created: true, incident, previousSeverity: null });
    expect(created).toMatchObject({ type: 'incident.created', severity: 'error', details: { incident_id: incident.id, severity: 'high' } });
    expect(incidentEvent({ incidentId: incident.id, created: true, incident, previousSeverity: null })!.id).toBe(created!.id);
    expect(incidentEvent({ incidentId: incident.id, created: false, incident, previousSeverity: 'medium' })).toMatchObject({ type: 'incident.severity_raised', details: { previous_severity: 'medium' } });
    expect(incidentEvent({ incidentId: incident.id, created: false, incident, previousSeverity: 'high' })).toBeNull();
    expect(incidentEvent({ incidentId: incident.id, created: false, incident, previousSeverity: 'critical' })).toBeNull();
  });
});

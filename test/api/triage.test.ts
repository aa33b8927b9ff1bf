// What the console's triage pages read and write (issue 40), on incidents the
// pipeline made from real sshd lines: an incident with its leads, evidence and
// nodes (flags, GeoIP/ASN); a status change with a note, named by its user;
// the leads list and the node filters of the three lists; the nodes an
// artifact made; and the login methods a login page may ask for without a session.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { drained, FUSED_STAGES, get } from '../helpers/pipeline.js';

interface Lead {
  id: string;
  rule_id: string;
  severity: string;
  node_ids: string[];
  artifact_ids: string[];
  incident_id: string | null;
  created_at: string;
}
interface Node {
  id: string;
  type: string;
  value: string;
  flags: Record<string, boolean>;
  geo: unknown;
  as: unknown;
}
interface IncidentPage {
  id: string;
  node_count: number;
  nodes: Node[];
  observations: { id: string; created_at: string }[];
  leads: { id: string; rule_name: string; artifact_ids: string[]; node_ids: string[]; first_seen: string }[];
  status_history: { from_status: number; to_status: number; changed_by: string; changed_by_name: string | null; note: string }[];
}

describe('triage reads and writes', () => {
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  let api: TestApi;
  let admin: string;
  let incidents: { id: string; severity: string; created_at: string }[];
  let leads: Lead[];

  beforeAll(async () => {
    api = await startTestApi({ stages: FUSED_STAGES, env: { CAIRN_ORG_ID: orgId, CAIRN_INTERNAL_NETWORKS: '10.0.0.0/8' } });
    admin = api.token('all', orgId);
    for (const rule of [
      { name: 'ssh guessing', severity: 'high', conditions: { source: 'auth', pattern: '"Failed password"', threshold: 3, window: '1h', group_by: 'source.ip' } },
      { name: 'ssh root login', severity: 'low', conditions: { source: 'auth', pattern: '"Accepted password for root"' } },
    ]) {
      const res = await api.request('POST', '/api/v1/lead-rules', { token: admin, body: rule });
      expect(res.status, res.text).toBe(201);
    }
    const now = Date.now();
    const line = (i: number, text: string, host = 'web') => ({ source: 'auth', timestamp: new Date(now - (40 - i) * 60_000).toISOString(), raw: `Nov 27 10:00:00 ${host} sshd[${2000 + i}]: ${text}` });
    const artifacts = [
      ...Array.from({ length: 6 }, (_, i) => line(i, `Failed password for invalid user admin from 198.51.100.${i % 2 === 0 ? 7 : 9} port ${50000 + i} ssh2`)),
      // Another host, address and account: an incident of its own.
      line(10, 'Accepted password for root from 10.1.2.3 port 50100 ssh2', 'db'),
    ];
    const res = await api.request('POST', '/api/v1/artifacts', { token: admin, body: { artifacts } });
    expect(res.status, res.text).toBe(202);
    await drained(api);
    incidents = (await get<{ incidents: { id: string; severity: string; created_at: string }[] }>(api, admin, '/api/v1/incidents?limit=100')).incidents;
    leads = (await get<{ leads: Lead[] }>(api, admin, '/api/v1/leads?limit=100')).leads;
  }, 120_000);
  afterAll(async () => api?.close());

  it("answers an incident with its leads, their evidence, and its nodes with flags and GeoIP/ASN", async () => {
    expect(leads).toHaveLength(3);
    const incidentIds = new Set(leads.map((l) => l.incident_id));
    expect(incidentIds.has(null)).toBe(false);
    expect(new Set(incidents.map((i) => i.id))).toEqual(incidentIds);
    for (const { id } of incidents) {
      const page = await get<IncidentPage>(api, admin, `/api/v1/incidents/${id}`);
      const own = leads.filter((l) => l.incident_id === id);
      expect(page.leads.map((l) => l.id).sort()).toEqual(own.map((l) => l.id).sort());
      expect(page.leads.map((l) => l.first_seen)).toEqual([...page.leads.map((l) => l.first_seen)].sort());
      expect(page.leads.flatMap((l) => l.artifact_ids).sort()).toEqual(own.flatMap((l) => l.artifact_ids).sort());
      // Every node the incident counts, as GET /v1/nodes/:id shows it.
      expect(page.nodes).toHaveLength(page.node_count);
      expect(page.node_count).toBeGreaterThan(0);
      for (const node of page.nodes) {
        const { edges: _edges, ...alone } = await get<Node & { edges: unknown }>(api, admin, `/api/v1/nodes/${node.id}`);
        expect(node).toEqual(alone);
      }
      expect(page.observations.map((o) => o.id).sort()).toEqual([...new Set(own.map((l) => (l as unknown as { observation_id: string }).observation_id))].sort());
      for (const o of page.observations) expect(Date.parse(o.created_at)).toBeGreaterThan(0);
    }
    const guessing = await get<IncidentPage>(api, admin, `/api/v1/incidents/${leads.find((l) => l.severity === 'high')!.incident_id}`);
    const internal = (await get<IncidentPage>(api, admin, `/api/v1/incidents/${leads.find((l) => l.severity === 'low')!.incident_id}`)).nodes.find((n) => n.value === '10.1.2.3')!;
    expect(internal.flags.internal).toBe(true);
    expect([internal.geo, internal.as]).toEqual([null, null]);
    expect(guessing.nodes.find((n) => n.value === '198.51.100.7')).toMatchObject({ type: 'IP', flags: { internal: false } });
  });

  it('records a note with a status change, names the user who made it, and audits it', async () => {
    const email = `ana-${randomUUID().slice(0, 6)}@example.com`;
    const created = await api.request('POST', '/api/v1/users', { token: admin, body: { email, name: 'Ana Analyst', role_id: BUILTIN_ROLES.analyst.id, password: 'correct horse battery staple' } });
    expect(created.status, created.text).toBe(201);
    const login = await api.request('POST', '/api/v1/auth/login', { body: { email, password: 'correct horse battery staple' } });
    const token = (login.body.data as { token: string }).token;
    const { id } = incidents[0]!;
    const set = await api.request('PUT', `/api/v1/incidents/${id}/status`, { token, body: { status: 3, note: '  blocked 198.51.100.0/24 at the edge  ' } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.data).toEqual({ id, status: 3, status_name: 'Resolved', classification: 'true_positive', note: 'blocked 198.51.100.0/24 at the edge' });
    // A note alone (the status unchanged) is kept too; a change without one has an empty note.
    expect((await api.request('PUT', `/api/v1/incidents/${id}/status`, { token, body: { status: 3, note: 'confirmed with the owner' } })).status).toBe(200);
    expect((await api.request('PUT', `/api/v1/incidents/${id}/status`, { token: admin, body: { status: 2 } })).status).toBe(200);
    const page = await get<IncidentPage>(api, admin, `/api/v1/incidents/${id}`);
    const userId = (login.body.data as { user: { id: string } }).user.id;
    expect(page.status_history.map(({ from_status, to_status, changed_by, changed_by_name, note }) => ({ from_status, to_status, changed_by, changed_by_name, note }))).toEqual([
      { from_status: 1, to_status: 3, changed_by: userId, changed_by_name: 'Ana Analyst', note: 'blocked 198.51.100.0/24 at the edge' },
      { from_status: 3, to_status: 3, changed_by: userId, changed_by_name: 'Ana Analyst', note: 'confirmed with the owner' },
      { from_status: 3, to_status: 2, changed_by: 'tester', changed_by_name: null, note: '' },
    ]);
    const audit = (await get<{ entries: { action: string; target_id: string; after: { note?: string } }[] }>(api, admin, '/api/v1/audit-log?action=PUT%20%2Fv1%2Fincidents%2F%3Aid%2Fstatus')).entries;
    expect(audit.filter((e) => e.target_id === id).map((e) => e.after.note).sort()).toEqual(['', 'blocked 198.51.100.0/24 at the edge', 'confirmed with the owner']);
    // The read view has the notes as well.
    const view = await api.runtime.store.query({ query: 'SELECT note FROM v_incident_status_changes WHERE org_id = {org:String} ORDER BY changed_at', query_params: { org: orgId }, format: 'JSONEachRow' });
    expect((await view.json<{ note: string }>()).map((r) => r.note)).toEqual(['blocked 198.51.100.0/24 at the edge', 'confirmed with the owner', '']);

    const tooLong = await api.request('PUT', `/api/v1/incidents/${id}/status`, { token: admin, body: { status: 4, note: 'x'.repeat(2001) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toContain('note must be at most 2000 characters');
    expect((await api.request('PUT', `/api/v1/incidents/${id}/status`, { token: admin, body: { status: 4, note: 7 } })).status).toBe(400);
  });

  it('lists leads with the filters and orders of the other lists, and filters all three by node', async () => {
    const list = async (q: string) => get<{ leads: Lead[]; total: number }>(api, admin, `/api/v1/leads?${q}`);
    expect((await list('severity=high')).leads.map((l) => l.severity)).toEqual(['high', 'high']);
    const bySeverity = (await list('sort=severity')).leads.map((l) => l.severity);
    expect(bySeverity).toEqual(['high', 'high', 'low']);
    const oldest = (await list('sort=oldest')).leads.map((l) => l.created_at);
    expect(oldest).toEqual([...oldest].sort());
    const newest = (await list('')).leads.map((l) => l.created_at);
    expect(newest).toEqual([...newest].sort().reverse());
    const page = await list('limit=1&offset=1&sort=oldest');
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.leads[0]!.created_at).toBe(oldest[1]);
    const rule = leads.find((l) => l.severity === 'low')!.rule_id;
    expect((await list(`rule_id=${rule}`)).total).toBe(1);
    const incident = leads[0]!.incident_id!;
    expect((await list(`incident_id=${incident}`)).leads.map((l) => l.id).sort()).toEqual(leads.filter((l) => l.incident_id === incident).map((l) => l.id).sort());
    expect((await api.request('GET', '/api/v1/leads?sort=loudest', { token: admin })).status).toBe(400);
    expect((await api.request('GET', '/api/v1/leads?node_id=nope', { token: admin })).status).toBe(400);
    expect((await api.request('GET', '/api/v1/leads', { token: api.token(['incidents:read'], orgId) })).status).toBe(403);

    // One attacker's address: its lead, its incident, its observation.
    const attacker = (await get<{ nodes: Node[] }>(api, admin, '/api/v1/nodes?type=IP&value=198.51.100.7')).nodes[0]!;
    const itsLeads = (await list(`node_id=${attacker.id}`)).leads;
    expect(itsLeads).toHaveLength(1);
    expect(itsLeads[0]!.node_ids).toContain(attacker.id);
    const itsIncidents = await get<{ incidents: { id: string }[] }>(api, admin, `/api/v1/incidents?node_id=${attacker.id}`);
    expect(itsIncidents.incidents.map((i) => i.id)).toEqual([itsLeads[0]!.incident_id]);
    const itsObservations = await get<{ observations: { node_ids: string[] }[] }>(api, admin, `/api/v1/observations?node_id=${attacker.id}`);
    expect(itsObservations.observations).toHaveLength(1);
    expect(itsObservations.observations[0]!.node_ids).toContain(attacker.id);
    const incidentsBySeverity = await get<{ incidents: { severity: string }[] }>(api, admin, '/api/v1/incidents?sort=severity');
    expect(incidentsBySeverity.incidents.map((i) => i.severity)).toEqual(['high', 'low']);
  });

  it("answers the nodes an artifact made, with the ids the graph holds", async () => {
    const artifactId = leads.find((l) => l.severity === 'low')!.artifact_ids[0]!;
    const made = await get<{ artifact_id: string; nodes: { id: string; type: string; value: string; field: string }[] }>(api, admin, `/api/v1/artifacts/${artifactId}/nodes`);
    expect(made.artifact_id).toBe(artifactId);
    expect(made.nodes.map((n) => `${n.field} ${n.type} ${n.value}`).sort()).toEqual(['host.hostname host db', 'source.ip IP 10.1.2.3', 'user.name user root']);
    for (const node of made.nodes) expect((await get<Node>(api, admin, `/api/v1/nodes/${node.id}`)).value).toBe(node.value);
    expect((await api.request('GET', `/api/v1/artifacts/${randomUUID()}/nodes`, { token: admin })).status).toBe(404);
    expect((await api.request('GET', `/api/v1/artifacts/${artifactId}/nodes`, { token: api.token(['signals:read'], orgId) })).status).toBe(403);
  });

  it('tells a login page, without a session, the login methods and no setting', async () => {
    const res = await fetch(`${api.url}/api/v1/auth/methods`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toEqual({ methods: ['local'], saml_login_url: null });
  });

  it('describes the new routes and parameters in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${api.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { parameters?: { name: string }[]; requestBody?: unknown }>> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/leads', '/api/v1/artifacts/{id}/nodes', '/api/v1/auth/methods']));
    expect(doc.paths['/api/v1/incidents']!.get!.parameters!.map((p) => p.name)).toEqual(expect.arrayContaining(['node_id', 'sort']));
    expect(JSON.stringify(doc.paths['/api/v1/incidents/{id}/status']!.put!.requestBody)).toContain('note');
  });
});

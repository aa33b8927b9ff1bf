// The read views of migration 017 (docs/reporting.md), read as a reporting
// job reads them, against the API's answers over the same data: real sshd
// lines through the pipeline, a lead rule that fires, incidents whose status
// the test sets, and deletions the views must not show.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './helpers/api.js';
import { eventually } from './helpers/buses.js';
import { get, ingestLines, orgOf } from './helpers/pipeline.js';
import { findStage } from '../pipeline/stages.js';
import { samplesDir } from './helpers/samples.js';
import { toIsoTimestamp } from '../clickhouse/client.js';

interface IncidentOut {
  id: string;
  severity: string;
  status: number;
  status_name: string;
  classification: string | null;
  artifact_count: number;
  node_count: number;
  created_at: string;
  observations?: { id: string }[];
  status_history?: { from_status: number; to_status: number; changed_by: string }[];
}
interface ObservationOut {
  id: string;
  rule_id: string | null;
  artifact_ids: string[];
}
interface NodeOut {
  id: string;
  type: string;
  value: string;
  edge_count: number;
  created_at: string;
}
interface EdgeOut {
  id: string;
  artifact_count: number;
  first_seen: string;
  last_seen: string;
}
interface RuleOut {
  id: string;
  name: string;
}
interface IncidentRow {
  id: string;
  severity: string;
  status: number;
  status_name: string;
  classification: string | null;
  artifact_count: number;
  node_count: number;
  created_at: string;
  status_changed_by: string | null;
}

const BRUTE_FORCE = {
  name: 'SSH brute force',
  severity: 'high',
  conditions: { source: 'auth', pattern: '"Failed password"', threshold: 5, window: '5m', group_by: 'source.ip' },
};
const INVALID_USERS = {
  name: 'SSH invalid users',
  severity: 'medium',
  conditions: { source: 'auth', pattern: '"Invalid user"', threshold: 3, window: '5m', group_by: 'source.ip' },
};
/** A rule that never fires, then deleted: v_lead_rules must forget it. */
const DELETED_RULE = { name: 'Never fires', severity: 'low', conditions: { pattern: 'zzqqxx-no-such-word' } };

const DOC = fs.readFileSync(path.join(import.meta.dirname, '..', 'docs', 'reporting.md'), 'utf8');

/** The example queries of docs/reporting.md, in order: the tests run them as printed, for this test's organization. */
function docQueries(orgId: string): string[] {
  const examples = DOC.slice(DOC.indexOf('## Example queries'));
  return [...examples.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.replaceAll("org_id = 'default'", `org_id = '${orgId}'`));
}

const STAGES = ['store', 'analysis', 'correlator'];

let api: TestApi;
let token: string;
let orgId: string;

/** Waits until the stages this test runs have consumed everything (helpers/pipeline.ts drained() waits for every stage of the topology). */
async function caughtUp(): Promise<void> {
  await eventually(async () => {
    for (const name of STAGES) expect(await api.runtime.bus.lag(name, findStage(name)!.input), name).toBe(0);
  }, 60_000, 100);
}

async function rows<T>(query: string): Promise<T[]> {
  const result = await api.runtime.store.query({ query, query_params: { org: orgId }, format: 'JSONEachRow' });
  return result.json<T>();
}

async function incidents(): Promise<IncidentOut[]> {
  const { incidents: list } = await get<{ incidents: IncidentOut[] }>(api, token, '/api/v1/incidents?limit=1000');
  return Promise.all(list.map((i) => get<IncidentOut>(api, token, `/api/v1/incidents/${i.id}`)));
}

async function observations(): Promise<ObservationOut[]> {
  return (await get<{ observations: ObservationOut[] }>(api, token, '/api/v1/observations?limit=1000')).observations;
}

/** The API's total for an artifact search. */
async function artifactTotal(query?: string): Promise<number> {
  const q = query ? `&query=${encodeURIComponent(query)}` : '';
  return (await get<{ total: number }>(api, token, `/api/v1/artifacts?limit=1&exact_total=true${q}`)).total;
}

/** ClickHouse's DateTime64 text as the API writes it. */
const iso = (value: string) => toIsoTimestamp(value);

function byId<T extends { id: string }>(items: T[]): Map<string, T> {
  return new Map(items.map((item) => [item.id, item]));
}

describe('read views', () => {
  let rules: RuleOut[];
  /** v_incidents before the test set any status. */
  let untouched: IncidentRow[];

  beforeAll(async () => {
    api = await startTestApi({ stages: STAGES });
    token = api.token();
    orgId = orgOf(token);
    rules = [];
    for (const rule of [BRUTE_FORCE, INVALID_USERS, DELETED_RULE]) {
      const res = await api.request('POST', '/api/v1/lead-rules', { token, body: rule });
      expect(res.status, res.text).toBe(201);
      rules.push(res.body.data as RuleOut);
    }
    const auth = path.join(samplesDir(), 'auth');
    const lines = [
      ...fs.readFileSync(path.join(auth, 'secure-rhel7.log'), 'utf8').split('\n').slice(0, 400),
      ...fs.readFileSync(path.join(auth, 'openssh-loghub.log'), 'utf8').split('\n').slice(0, 400),
    ].filter((l) => l.trim());
    await ingestLines(api, token, lines);
    await caughtUp();
    await eventually(async () => expect(await artifactTotal()).toBe(lines.length), 60_000, 200);
    const found = await eventually(async () => {
      const list = await incidents();
      expect(list.length).toBeGreaterThanOrEqual(2);
      return list;
    }, 60_000, 200);
    untouched = await rows<IncidentRow>('SELECT * FROM v_incidents WHERE org_id = {org:String}');
    // Statuses the views must report: one resolved after investigating (true positive), one closed (false positive).
    const [first, second] = found;
    for (const [id, status] of [[first!.id, 2], [first!.id, 3], [second!.id, 4]] as const) {
      expect((await api.request('PUT', `/api/v1/incidents/${id}/status`, { token, body: { status } })).status).toBe(200);
    }
  }, 180_000);
  afterAll(async () => {
    await api?.close();
  });

  it('reads every view under readonly = 1, with the same answer whatever join_use_nulls the reader sets', async () => {
    const orderBy: Record<string, string> = {
      v_artifacts: 'id', v_events: 'artifact_id', v_nodes: 'id', v_edges: 'id', v_observations: 'id', v_leads: 'id',
      v_incidents: 'id', v_incident_status_changes: 'incident_id, changed_at', v_lead_rules: 'id',
    };
    for (const [view, key] of Object.entries(orderBy)) {
      const query = `SELECT * FROM ${view} WHERE org_id = {org:String} ORDER BY ${key}`;
      const plain = await rows(`${query} SETTINGS readonly = 1`);
      expect(plain.length, view).toBeGreaterThan(0);
      expect(await rows(`${query} SETTINGS join_use_nulls = 1, readonly = 1`), view).toEqual(plain);
    }
  });

  it('holds in v_artifacts and v_events what artifact search finds', async () => {
    const count = async (query: string) => Number((await rows<{ n: string }>(query))[0]!.n);
    expect(await count('SELECT count() AS n FROM v_artifacts WHERE org_id = {org:String}')).toBe(await artifactTotal());
    expect(await count('SELECT count() AS n FROM v_events WHERE org_id = {org:String} AND source_ip IS NOT NULL')).toBe(await artifactTotal('source.ip:*'));
    expect(await count("SELECT count() AS n FROM v_events WHERE org_id = {org:String} AND has(event_category, 'authentication') AND event_outcome = 'failure'"))
      .toBe(await artifactTotal('event.category:authentication AND event.outcome:failure'));
    expect(await count("SELECT count() AS n FROM v_events WHERE org_id = {org:String} AND user_name = 'root' AND source_port IS NOT NULL"))
      .toBe(await artifactTotal('user.name:root AND source.port:*'));
  });

  it('answers one row per node and edge in v_nodes and v_edges, as the graph API does', async () => {
    const { nodes, total } = await get<{ nodes: NodeOut[]; total: number }>(api, token, '/api/v1/nodes?limit=1000');
    expect(total).toBeLessThanOrEqual(1000);
    const ip = nodes.find((n) => n.type === 'IP')!;
    expect((await api.request('PUT', `/api/v1/nodes/${ip.id}/flags`, { token, body: { trusted: true } })).status).toBe(200);

    const viewNodes = await rows<NodeOut & { first_seen: string; trusted_override: boolean | null; managed_override: boolean | null }>(
      'SELECT * FROM v_nodes WHERE org_id = {org:String}',
    );
    expect(viewNodes).toHaveLength(total);
    const apiNodes = byId(nodes);
    for (const node of viewNodes) {
      const expected = apiNodes.get(node.id)!;
      expect({ type: node.type, value: node.value, edge_count: Number(node.edge_count), created_at: iso(node.first_seen) }, node.value)
        .toEqual({ type: expected.type, value: expected.value, edge_count: expected.edge_count, created_at: expected.created_at });
      expect(node.trusted_override).toBe(node.id === ip.id ? true : null);
      expect(node.managed_override).toBeNull();
    }

    const edges = await get<{ edges: EdgeOut[]; total: number }>(api, token, '/api/v1/edges?limit=1000');
    expect(edges.total).toBeLessThanOrEqual(1000);
    const viewEdges = await rows<EdgeOut>('SELECT * FROM v_edges WHERE org_id = {org:String}');
    expect(viewEdges).toHaveLength(edges.total);
    const apiEdges = byId(edges.edges);
    for (const edge of viewEdges) {
      const expected = apiEdges.get(edge.id)!;
      expect({ artifact_count: Number(edge.artifact_count), first_seen: iso(edge.first_seen), last_seen: iso(edge.last_seen) })
        .toEqual({ artifact_count: expected.artifact_count, first_seen: expected.first_seen, last_seen: expected.last_seen });
    }
  });

  it('shows New and no classification for incidents whose status was never set', () => {
    expect(untouched.length).toBeGreaterThanOrEqual(2);
    for (const incident of untouched) {
      expect(incident).toMatchObject({ status: 1, status_name: 'New', classification: null, status_changed_by: null });
    }
  });

  it('reports in v_incidents the status, its name and the classification the API gives', async () => {
    const expected = await incidents();
    const viewed = byId(await rows<IncidentRow>('SELECT * FROM v_incidents WHERE org_id = {org:String}'));
    expect(viewed.size).toBe(expected.length);
    expect(expected.map((i) => i.classification)).toEqual(expect.arrayContaining(['true_positive', 'false_positive']));
    for (const incident of expected) {
      const row = viewed.get(incident.id)!;
      expect({ ...row, created_at: iso(row.created_at), status: Number(row.status), artifact_count: Number(row.artifact_count), node_count: Number(row.node_count) })
        .toMatchObject({
          severity: incident.severity,
          status: incident.status,
          status_name: incident.status_name,
          classification: incident.classification,
          artifact_count: incident.artifact_count,
          node_count: incident.node_count,
          created_at: incident.created_at,
          status_changed_by: incident.status === 1 ? null : 'tester',
        });
    }
  });

  it('lists in v_incident_status_changes every change the API history holds', async () => {
    const expected = (await incidents()).flatMap((i) =>
      i.status_history!.map((c) => ({ incident_id: i.id, from_status: c.from_status, to_status: c.to_status, changed_by: c.changed_by })),
    );
    expect(expected).toHaveLength(3);
    const changes = await rows<{ incident_id: string; from_status: number; from_status_name: string; to_status: number; to_status_name: string; classification: string | null; changed_by: string }>(
      'SELECT * FROM v_incident_status_changes WHERE org_id = {org:String} ORDER BY changed_at',
    );
    expect(changes.map(({ incident_id, from_status, to_status, changed_by }) => ({ incident_id, from_status, to_status, changed_by }))).toEqual(expected);
    expect(changes.map((c) => [c.from_status_name, c.to_status_name, c.classification])).toEqual([
      ['New', 'Investigating', null],
      ['Investigating', 'Resolved', 'true_positive'],
      ['New', 'Closed', 'false_positive'],
    ]);
  });

  it('answers in v_observations, v_leads and v_lead_rules the current rows, each lead with its incident', async () => {
    const apiObservations = await observations();
    const viewObservations = await rows<ObservationOut>('SELECT * FROM v_observations WHERE org_id = {org:String}');
    expect(viewObservations.map((o) => [o.id, o.rule_id]).sort()).toEqual(apiObservations.map((o) => [o.id, o.rule_id]).sort());

    // Every firing is a lead with its observation; the incident holding that observation is the lead's.
    const incidentOf = new Map((await incidents()).flatMap((i) => i.observations!.map((o) => [o.id, i.id] as const)));
    const leads = await rows<{ observation_id: string; rule_id: string; incident_id: string | null }>('SELECT * FROM v_leads WHERE org_id = {org:String}');
    expect(leads.map((l) => l.observation_id).sort()).toEqual(apiObservations.map((o) => o.id).sort());
    for (const lead of leads) expect(lead.incident_id).toBe(incidentOf.get(lead.observation_id) ?? null);

    const apiRules = (await get<{ rules: RuleOut[] }>(api, token, '/api/v1/lead-rules?limit=1000')).rules;
    const viewRules = await rows<RuleOut>('SELECT * FROM v_lead_rules WHERE org_id = {org:String}');
    expect(viewRules.map((r) => [r.id, r.name]).sort()).toEqual(apiRules.map((r) => [r.id, r.name]).sort());
  });

  it('answers the example queries of docs/reporting.md with what the API data gives', async () => {
    const [perDay, topAddresses, perRule, ...rest] = docQueries(orgId);
    expect(rest).toHaveLength(0);
    const list = await incidents();

    // Incidents per day by severity, last 30 days.
    const days = new Map<string, number>();
    for (const i of list) if (Date.parse(i.created_at) >= Date.now() - 30 * 86_400_000) days.set(`${i.created_at.slice(0, 10)} ${i.severity}`, (days.get(`${i.created_at.slice(0, 10)} ${i.severity}`) ?? 0) + 1);
    const perDayRows = await rows<{ day: string; severity: string; incidents: string }>(perDay!);
    expect(new Map(perDayRows.map((r) => [`${r.day} ${r.severity}`, Number(r.incidents)]))).toEqual(days);

    // Top attacking addresses: every IP node's failures, counted by artifact search, the ten most first.
    const { nodes } = await get<{ nodes: NodeOut[] }>(api, token, '/api/v1/nodes?type=IP&limit=1000');
    const failures = await Promise.all(
      nodes.map(async (n) => ({ source_ip: n.value, failures: await artifactTotal(`event.category:authentication AND event.outcome:failure AND source.ip:"${n.value}"`) })),
    );
    const top = failures
      .filter((f) => f.failures > 0)
      .sort((a, b) => b.failures - a.failures || (a.source_ip < b.source_ip ? -1 : 1))
      .slice(0, 10);
    expect(top.length).toBeGreaterThan(1);
    const topRows = await rows<{ source_ip: string; failures: string }>(topAddresses!);
    expect(topRows.map((r) => ({ source_ip: r.source_ip, failures: Number(r.failures) }))).toEqual(top);

    // True and false positives per rule: the incidents holding each rule's observations, by classification.
    const ruleOf = new Map((await observations()).map((o) => [o.id, o.rule_id]));
    const perRuleExpected = new Map<string, { incidents: Set<string>; tp: Set<string>; fp: Set<string> }>();
    for (const incident of list) {
      for (const { id } of incident.observations!) {
        const rule = ruleOf.get(id)!;
        const entry = perRuleExpected.get(rule) ?? { incidents: new Set(), tp: new Set(), fp: new Set() };
        entry.incidents.add(incident.id);
        if (incident.classification === 'true_positive') entry.tp.add(incident.id);
        if (incident.classification === 'false_positive') entry.fp.add(incident.id);
        perRuleExpected.set(rule, entry);
      }
    }
    const perRuleRows = await rows<{ rule_id: string; rule_name: string; incidents: string; true_positives: string; false_positives: string; precision: number | null }>(perRule!);
    expect(perRuleRows.length).toBe(perRuleExpected.size);
    for (const row of perRuleRows) {
      const expected = perRuleExpected.get(row.rule_id)!;
      const tp = expected.tp.size;
      const fp = expected.fp.size;
      expect([Number(row.incidents), Number(row.true_positives), Number(row.false_positives), row.precision], row.rule_name)
        .toEqual([expected.incidents.size, tp, fp, tp + fp ? Math.round((tp / (tp + fp)) * 1000) / 1000 : null]);
    }
  });

  it('leaves deleted observations and lead rules out', async () => {
    const [gone] = await observations();
    expect((await api.request('DELETE', `/api/v1/observations/${gone!.id}`, { token })).status).toBe(200);
    const deletedRule = rules.find((r) => r.name === DELETED_RULE.name)!;
    expect((await api.request('DELETE', `/api/v1/lead-rules/${deletedRule.id}`, { token })).status).toBe(200);

    const viewObservations = await rows<{ id: string }>('SELECT id FROM v_observations WHERE org_id = {org:String}');
    expect(viewObservations.map((o) => o.id)).not.toContain(gone!.id);
    expect(viewObservations.map((o) => o.id).sort()).toEqual((await observations()).map((o) => o.id).sort());
    const viewRules = await rows<{ id: string }>('SELECT id FROM v_lead_rules WHERE org_id = {org:String}');
    expect(viewRules.map((r) => r.id)).not.toContain(deletedRule.id);
    expect(viewRules).toHaveLength(rules.length - 1);
  });
});

// Reports (issue 16) on a known data set: real sshd and Suricata lines run
// through the pipeline, two lead rules, incidents whose statuses the test
// sets. Every figure is checked against one the test computes itself from
// what the API says about the same data; CSV parses back to the same numbers;
// a snapshot keeps its figures after the data changes.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../identity/permissions.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { FUSED_STAGES, drained, ingestLines } from '../helpers/pipeline.js';
import { samplesDir } from '../helpers/samples.js';

interface Incident {
  id: string;
  severity: string;
  status: number;
  created_at: string;
  first_seen: string;
  nodes: { id: string; type: string; value: string }[];
  observations: { id: string }[];
  status_history: { to_status: number; changed_at: string }[];
}

/** A name CSV must quote: a comma, double quotes and a line break. */
const NEVER_FIRES = 'never fires, "not once"\nat all';
const STATUS_NAMES: Record<number, string> = { 1: 'New', 2: 'Investigating', 3: 'Resolved', 4: 'Closed', 5: 'Disrupted' };
const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(0.9 * values.length)]!;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

describe('reports', () => {
  let api: TestApi;
  let token: string;
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const sshd = fs.readFileSync(path.join(samplesDir(), 'auth', 'openssh-loghub.log'), 'utf8').split('\n').filter(Boolean).slice(0, 300);
  const suricata = fs.readFileSync(path.join(samplesDir(), 'suricata', 'eve-alerts.log'), 'utf8').split('\n').filter(Boolean).slice(0, 40);
  let incidents: Incident[] = [];
  let ruleOf = new Map<string, string>();
  const get = async <T>(p: string) => {
    const res = await api.request('GET', p, { token });
    expect(res.status, `${p}: ${res.text.slice(0, 300)}`).toBe(200);
    return res.body.data as T;
  };

  beforeAll(async () => {
    // Framework 1 (PCI DSS) covers the sshd server's host name and one address block; framework 3 covers nothing seen.
    api = await startTestApi({ stages: FUSED_STAGES, env: { CAIRN_ORG_ID: orgId, CAIRN_FRAMEWORK_SCOPES: '1=LabSZ,173.234.31.0/24;3=*.nowhere.example' } });
    token = api.token('all', orgId);
    for (const rule of [
      { name: 'ssh failed password', severity: 'medium', conditions: { source: 'auth', pattern: '"Failed password"' } },
      { name: 'suricata alert', severity: 'high', conditions: { source: 'suricata', pattern: 'event.kind:alert' } },
      { name: NEVER_FIRES, severity: 'low', conditions: { pattern: 'zzzzzz-never-in-any-line' } },
    ]) {
      const res = await api.request('POST', '/api/v1/lead-rules', { token, body: rule });
      expect(res.status, res.text).toBe(201);
    }
    await ingestLines(api, token, sshd, 'auth');
    await ingestLines(api, token, suricata, 'suricata');
    await drained(api);
    const list = await get<{ incidents: { id: string }[] }>('/api/v1/incidents?limit=1000');
    expect(list.incidents.length).toBeGreaterThan(5);
    // Statuses: a spread of every kind, so precision and resolution times have something to count.
    for (const [i, { id }] of list.incidents.entries()) {
      const status = [3, 4, 5, 2, 1][i % 5]!;
      if (status !== 1) expect((await api.request('PUT', `/api/v1/incidents/${id}/status`, { token, body: { status } })).status).toBe(200);
    }
    incidents = await Promise.all(list.incidents.map((i) => get<Incident>(`/api/v1/incidents/${i.id}`)));
    const observations = await get<{ observations: { id: string; rule_id: string | null }[] }>('/api/v1/observations?limit=1000');
    ruleOf = new Map(observations.observations.map((o) => [o.id, o.rule_id ?? '']));
  }, 180_000);
  afterAll(async () => api?.close());

  it('executive: every figure as the test counts it', async () => {
    const report = await get<Record<string, any>>('/api/v1/reports/executive');
    const tp = incidents.filter((i) => i.status === 3 || i.status === 5).length;
    const fp = incidents.filter((i) => i.status === 4).length;
    expect(report.incidents).toEqual({ current: incidents.length, previous: 0 });
    for (const severity of ['low', 'medium', 'high', 'critical']) expect(report.by_severity[severity].current).toBe(incidents.filter((i) => i.severity === severity).length);
    for (const [status, name] of Object.entries(STATUS_NAMES)) expect(report.by_status[name].current).toBe(incidents.filter((i) => i.status === Number(status)).length);
    expect(report.true_positives.current).toBe(tp);
    expect(report.false_positives.current).toBe(fp);
    expect(report.precision.current).toBeCloseTo(tp / (tp + fp), 4);
    const detect = incidents.map((i) => (Date.parse(i.created_at) - Date.parse(i.first_seen)) / 1000);
    expect(report.time_to_detect_seconds.mean.current).toBeCloseTo(mean(detect), 2);
    expect(report.time_to_detect_seconds.p90.current).toBeCloseTo(p90(detect), 2);
    const resolve = incidents.flatMap((i) => {
      const first = i.status_history.filter((h) => [3, 4, 5].includes(h.to_status)).map((h) => Date.parse(h.changed_at)).sort((a, b) => a - b)[0];
      return first === undefined ? [] : [(first - Date.parse(i.created_at)) / 1000];
    });
    expect(report.time_to_resolve_seconds.mean.current).toBeCloseTo(mean(resolve), 2);
    expect(report.time_to_resolve_seconds.p90.current).toBeCloseTo(p90(resolve), 2);
    expect(report.time_to_resolve_seconds.mean.previous).toBeNull();
    expect(report.artifacts_by_source).toEqual(expect.arrayContaining([{ source: 'auth', current: sshd.length, previous: 0 }, { source: 'suricata', current: suricata.length, previous: 0 }]));

    const perAddress = new Map<string, number>();
    const perTarget = new Map<string, number>();
    const nodes = await get<{ nodes: { id: string; flags: { internal: boolean } }[] }>('/api/v1/nodes?limit=1000');
    const internal = new Set(nodes.nodes.filter((n) => n.flags.internal).map((n) => n.id));
    for (const incident of incidents) {
      for (const node of incident.nodes) {
        const map = node.type === 'IP' && !internal.has(node.id) ? perAddress : perTarget;
        map.set(`${node.type} ${node.value}`, (map.get(`${node.type} ${node.value}`) ?? 0) + 1);
      }
    }
    const top = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1] || a[0].split(' ')[1]!.localeCompare(b[0].split(' ')[1]!)).slice(0, 10).map(([, n]) => n);
    expect(report.top_attacking_addresses.map((a: { incidents: number }) => a.incidents)).toEqual(top(perAddress));
    expect(report.most_targeted_nodes.map((a: { incidents: number }) => a.incidents)).toEqual(top(perTarget));
  });

  it('executive as CSV: a header row and the same numbers, quoting intact', async () => {
    const res = await fetch(`${api.url}/api/v1/reports/executive?format=csv`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(/filename="cairn-executive-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"/);
    const rows = parse(await res.text(), { columns: true }) as { section: string; metric: string; current: string; previous: string }[];
    const json = await get<Record<string, any>>('/api/v1/reports/executive');
    expect(Number(rows.find((r) => r.section === 'incidents' && r.metric === 'opened')!.current)).toBe(json.incidents.current);
    expect(Number(rows.find((r) => r.section === 'outcomes' && r.metric === 'precision')!.current)).toBeCloseTo(json.precision.current, 4);
    // Section names with parentheses and metrics with spaces come back whole.
    expect(rows.filter((r) => r.section === 'most targeted nodes (incidents)').length).toBe(json.most_targeted_nodes.length);
  });

  it('compliance: in-scope nodes, their log coverage and the incidents touching them', async () => {
    const { frameworks } = await get<{ frameworks: Record<string, any>[] }>('/api/v1/reports/compliance?framework_id=1');
    const nodes = await get<{ nodes: { id: string; value: string; frameworks: number[] }[] }>('/api/v1/nodes?frameworks=1&limit=1000');
    const inScope = new Set(nodes.nodes.map((n) => n.id));
    expect(frameworks).toHaveLength(1);
    expect(frameworks[0]!.framework).toBe('PCI DSS');
    expect(frameworks[0]!.nodes_in_scope).toBe(inScope.size);
    expect(frameworks[0]!.nodes_reporting + frameworks[0]!.nodes_silent).toBe(inScope.size);
    const touching = incidents.filter((i) => i.nodes.some((n) => inScope.has(n.id)));
    expect(frameworks[0]!.incidents).toBe(touching.length);
    for (const [status, name] of Object.entries(STATUS_NAMES)) expect(frameworks[0]!.incidents_by_status[name]).toBe(touching.filter((i) => i.status === Number(status)).length);
    expect(frameworks[0]!.open_older_than_7_days).toBe(0);
    const all = await get<{ frameworks: { framework_id: number; nodes_in_scope: number }[] }>('/api/v1/reports/compliance');
    expect(all.frameworks.map((f) => f.framework_id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(all.frameworks.find((f) => f.framework_id === 3)!.nodes_in_scope).toBe(0);
    expect((await api.request('GET', '/api/v1/reports/compliance?framework_id=9', { token })).status).toBe(400);
  });

  it('tool effectiveness: per source and per rule, rules that never fired', async () => {
    const report = await get<Record<string, any>>('/api/v1/reports/tool-effectiveness');
    const auth = report.sources.find((s: { source: string }) => s.source === 'auth');
    expect(auth.artifacts).toBe(sshd.length);
    const observations = await get<{ observations: { id: string; rule_id: string }[] }>('/api/v1/observations?limit=1000');
    const rules = await get<{ rules: { id: string; name: string }[] }>('/api/v1/lead-rules');
    for (const rule of rules.rules.filter((r) => r.name !== NEVER_FIRES)) {
      const row = report.rules.find((r: { rule_id: string }) => r.rule_id === rule.id);
      const mine = new Set(observations.observations.filter((o) => o.rule_id === rule.id).map((o) => o.id));
      const theirIncidents = incidents.filter((i) => i.observations.some((o) => mine.has(o.id)));
      expect(row.leads, rule.name).toBe(mine.size);
      expect(row.incidents, rule.name).toBe(theirIncidents.length);
      expect(row.true_positives, rule.name).toBe(theirIncidents.filter((i) => i.status === 3 || i.status === 5).length);
      expect(row.false_positives, rule.name).toBe(theirIncidents.filter((i) => i.status === 4).length);
      if (theirIncidents.length) expect(row.mean_time_to_detect_seconds, rule.name).toBeCloseTo(mean(theirIncidents.map((i) => (Date.parse(i.created_at) - Date.parse(i.first_seen)) / 1000)), 1);
    }
    expect(report.rules_never_fired.map((r: { rule_name: string }) => r.rule_name)).toEqual([NEVER_FIRES]);
    // As CSV: the same rows, the quoted name back whole, the numbers the same.
    const csv = await fetch(`${api.url}/api/v1/reports/tool-effectiveness?format=csv`, { headers: { authorization: `Bearer ${token}` } });
    const rows = parse(await csv.text(), { columns: true }) as Record<string, string>[];
    expect(rows.find((r) => r.kind === 'rule never fired')!.name).toBe(NEVER_FIRES);
    for (const rule of report.rules as { rule_name: string; leads: number; true_positives: number }[]) {
      const row = rows.find((r) => r.kind === 'rule' && r.name === rule.rule_name)!;
      expect([Number(row.leads), Number(row.true_positives)]).toEqual([rule.leads, rule.true_positives]);
    }
    expect(ruleOf.size).toBeGreaterThan(0);
  });

  it('cost and savings: bytes, prices and the analyst time correlation saved', async () => {
    const report = await get<Record<string, any>>('/api/v1/reports/cost-savings?ingest_price_per_gb=2&analyst_minutes_per_lead=12&analyst_hourly_rate=60');
    const auth = report.sources.find((s: { source: string }) => s.source === 'auth');
    expect(auth.ingested_bytes).toBe(sshd.reduce((sum, l) => sum + Buffer.byteLength(l), 0));
    expect(auth.ingest_cost).toBeCloseTo((auth.ingested_bytes / 1024 ** 3) * 2, 4);
    const leadsInIncidents = incidents.reduce((sum, i) => sum + i.observations.length, 0);
    expect(report.savings.leads_in_incidents).toBe(leadsInIncidents);
    expect(report.savings.incidents).toBe(incidents.length);
    expect(report.savings.analyst_minutes_saved_by_correlation).toBe((leadsInIncidents - incidents.length) * 12);
    const fpIncidents = incidents.filter((i) => i.status === 4);
    expect(report.savings.analyst_minutes_saved_by_false_positives_closed).toBe(fpIncidents.reduce((sum, i) => sum + i.observations.length - 1, 0) * 12);
    expect(report.prices).toMatchObject({ ingest_per_gb: 2, analyst_minutes_per_lead: 12, analyst_hourly_rate: 60 });
    expect((await api.request('GET', '/api/v1/reports/cost-savings?analyst_hourly_rate=-1', { token })).status).toBe(400);
  });

  it('keeps a snapshot as it was when the data changes', async () => {
    const taken = await api.request('POST', '/api/v1/reports/snapshots', { token, body: { type: 'executive' } });
    expect(taken.status, taken.text).toBe(201);
    const id = (taken.body.data as { id: string }).id;
    const before = await get<{ report: { by_status: Record<string, { current: number }> } }>(`/api/v1/reports/snapshots/${id}`);
    const open = incidents.find((i) => i.status === 1)!;
    await api.request('PUT', `/api/v1/incidents/${open.id}/status`, { token, body: { status: 4 } });
    const now = await get<{ by_status: Record<string, { current: number }> }>('/api/v1/reports/executive');
    expect(now.by_status.Closed!.current).toBe(before.report.by_status.Closed!.current + 1);
    const again = await get<{ report: { by_status: Record<string, { current: number }> } }>(`/api/v1/reports/snapshots/${id}`);
    expect(again.report).toEqual(before.report);
    const listed = await get<{ snapshots: { id: string; type: string; trigger: string }[] }>('/api/v1/reports/snapshots');
    expect(listed.snapshots.find((s) => s.id === id)).toMatchObject({ type: 'executive', trigger: 'manual' });
    const csv = await fetch(`${api.url}/api/v1/reports/snapshots/${id}?format=csv`, { headers: { authorization: `Bearer ${token}` } });
    const rows = parse(await csv.text(), { columns: true }) as { section: string; metric: string; current: string }[];
    expect(Number(rows.find((r) => r.metric === 'Closed')!.current)).toBe(before.report.by_status.Closed!.current);
  });

  it('answers the 10 rows of SPEC 4.9 and 4.10 per contract for the reports, and 400 for a period backwards', async () => {
    for (const report of ['executive', 'compliance', 'tool-effectiveness', 'cost-savings', 'snapshots']) {
      const p = `/api/v1/reports/${report}`;
      expect((await api.request('GET', p)).status, `${p} without a token`).toBe(401);
      expect((await api.request('GET', p, { token: api.token(PERMISSIONS.filter((x) => x !== 'reports:read'), orgId) })).status, `${p} without reports:read`).toBe(403);
      expect((await api.request('GET', p, { token: api.token(['reports:read'], orgId) })).status, p).toBe(200);
    }
    const backwards = await api.request('GET', '/api/v1/reports/executive?start=2026-11-02T00:00:00Z&end=2026-11-01T00:00:00Z', { token });
    expect(backwards.status).toBe(400);
    expect(backwards.body.message).toMatch(/start must be before end/);
  });
});

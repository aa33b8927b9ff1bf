// Lead rules firing on real sshd logs, end to end: ingest, parse, enrich,
// the rule stage and the correlator, through the API.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './helpers/api.js';
import { eventually } from './helpers/buses.js';
import { ALL_STAGES, FUSED_STAGES, drained as allDrained, get as getFrom, ingestLines as ingestInto, orgOf } from './helpers/pipeline.js';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'beats', 'secure-rhel7.log');
const RULE = {
  name: 'SSH brute force',
  severity: 'high',
  conditions: { pattern: 'Failed password', source: 'auth', threshold: 5, window: '5m', group_by: 'source.ip' },
};

interface Observation {
  id: string;
  type: string;
  description: string;
  severity: string;
  node_ids: string[];
  artifact_ids: string[];
  rule_id: string | null;
}
interface IncidentOut {
  id: string;
  title: string;
  severity: string;
  status: number;
  status_name: string;
  classification: string | null;
  artifact_count: number;
  node_count: number;
  nodes?: { id: string; type: string; value: string }[];
  observations?: { id: string }[];
}

/** Firings a tumbling 5-minute window per source IP gives, counted straight from the file. */
function expectedFirings(lines: string[], threshold: number): Map<string, number> {
  const perWindow = new Map<string, number>();
  for (const line of lines) {
    if (!line.includes('Failed password')) continue;
    const header = /^(\w{3}) +(\d+) (\d\d):(\d\d):\d\d /.exec(line);
    const ip = / from (\S+) port /.exec(line)?.[1];
    if (!header || !ip) continue;
    // 5-minute windows align to the epoch, so to the hour: the year does not matter.
    const key = `${ip}|${header[1]} ${header[2]} ${header[3]}:${Math.floor(Number(header[4]) / 5)}`;
    perWindow.set(key, (perWindow.get(key) ?? 0) + 1);
  }
  const firingsPerIp = new Map<string, number>();
  for (const [key, count] of perWindow) {
    if (count < threshold) continue;
    const ip = key.split('|')[0]!;
    firingsPerIp.set(ip, (firingsPerIp.get(ip) ?? 0) + 1);
  }
  return firingsPerIp;
}

let api: TestApi;

function get<T>(token: string, p: string): Promise<T> {
  return getFrom<T>(api, token, p);
}

function ingestLines(token: string, lines: string[]): Promise<void> {
  return ingestInto(api, token, lines);
}

function drained(): Promise<void> {
  return allDrained(api);
}

async function ruleObservations(token: string): Promise<Observation[]> {
  const { observations } = await get<{ observations: Observation[] }>(token, '/api/v1/observations?limit=1000');
  return observations.filter((o) => o.rule_id !== null);
}

describe.each([
  ['embedded', 'fused'],
  ['embedded', 'staged'],
  ['distributed', 'fused'],
  ['distributed', 'staged'],
] as const)('lead rules on real sshd logs, %s, %s stages', (mode, topology) => {
  const distributed = mode === 'distributed';
  const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n').filter((l) => l.trim());
  const expected = expectedFirings(lines, 5);
  let token = '';

  beforeAll(async () => {
    api = await startTestApi({ distributed, stages: topology === 'fused' ? FUSED_STAGES : ALL_STAGES });
    token = api.token();
    expect((await api.request('POST', '/api/v1/lead-rules', { token, body: RULE })).status).toBe(201);
    await ingestLines(token, lines);
    await drained();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it('makes one observation per attacking address and window that crossed the threshold, linked to its node', async () => {
    expect([...expected.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(3);
    const observations = await eventually(async () => {
      const found = await ruleObservations(token);
      expect(found).toHaveLength([...expected.values()].reduce((a, b) => a + b, 0));
      return found;
    });
    for (const [ip, firings] of expected) {
      const node = (await get<{ nodes: { id: string; value: string }[] }>(token, `/api/v1/nodes?type=IP&value=${ip}`)).nodes.find((n) => n.value === ip)!;
      expect(node, ip).toBeDefined();
      const linked = observations.filter((o) => o.node_ids.includes(node.id));
      expect(linked, ip).toHaveLength(firings);
      for (const o of linked) {
        expect(o).toMatchObject({ type: 'auth', severity: 'high' });
        expect(o.description).toContain(`source.ip ${ip}`);
        expect(o.description).toContain('SSH brute force');
        expect(o.artifact_ids.length).toBeGreaterThanOrEqual(5);
      }
    }
  });

  it('groups the leads into incidents with their severity, counts and a title naming who and what', async () => {
    const { incidents, total } = await get<{ incidents: IncidentOut[]; total: number }>(token, '/api/v1/incidents?limit=100');
    expect(total).toBeGreaterThanOrEqual(1);
    expect(total).toBeLessThan([...expected.values()].reduce((a, b) => a + b, 0)); // leads that share the attacked host join
    const incident = await get<IncidentOut>(token, `/api/v1/incidents/${incidents[0]!.id}`);
    expect(incident).toMatchObject({ severity: 'high', status: 1, status_name: 'New', classification: null });
    expect(incident.title).toMatch(/^SSH brute force: .+ against host slave22/);
    expect(incident.node_count).toBe(incident.nodes!.length);
    expect(incident.nodes!.some((n) => n.type === 'IP' && expected.has(n.value))).toBe(true);
    expect(incident.artifact_count).toBeGreaterThanOrEqual(5 * incident.observations!.length);
    const all = await ruleObservations(token);
    const inIncidents = new Set<string>();
    for (const i of incidents) for (const o of (await get<IncidentOut>(token, `/api/v1/incidents/${i.id}`)).observations!) inIncidents.add(o.id);
    expect(inIncidents).toEqual(new Set(all.map((o) => o.id)));
  });

  it('adds no observation, lead or incident when the same artifacts are replayed', async () => {
    const before = { observations: (await ruleObservations(token)).length, incidents: (await get<{ total: number }>(token, '/api/v1/incidents')).total };
    const orgId = orgOf(token);
    // Replay: the stored artifacts, with their ids, go through the pipeline again.
    const stored = await get<{ artifacts: { id: string; source: string; raw: string; timestamp: string }[] }>(token, '/api/v1/artifacts?limit=1000&source=auth');
    await api.runtime.bus.send(
      'artifacts.raw',
      stored.artifacts.map((a) => ({ key: a.id, value: Buffer.from(JSON.stringify({ id: a.id, org_id: orgId, source: a.source, raw: a.raw, timestamp: a.timestamp })) })),
    );
    await drained();
    const leads = await api.runtime.store.query({ query: 'SELECT count() AS n FROM leads FINAL WHERE org_id = {orgId:String}', query_params: { orgId }, format: 'JSONEachRow' });
    expect(Number((await leads.json<{ n: string }>())[0]!.n)).toBe(before.observations);
    expect((await ruleObservations(token)).length).toBe(before.observations);
    expect((await get<{ total: number }>(token, '/api/v1/incidents')).total).toBe(before.incidents);
  });

  it('sets an incident status, records who did it, and classifies it', async () => {
    const [incident] = (await get<{ incidents: IncidentOut[] }>(token, '/api/v1/incidents?limit=1')).incidents;
    const res = await api.request('PUT', `/api/v1/incidents/${incident!.id}/status`, { token, body: { status: 3 } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Incident status updated to Resolved');
    expect(res.body.data).toEqual({ id: incident!.id, status: 3, status_name: 'Resolved', classification: 'true_positive', note: '' });
    const after = await get<IncidentOut & { status_history: { from_status: number; to_status: number; changed_by: string }[] }>(token, `/api/v1/incidents/${incident!.id}`);
    expect(after).toMatchObject({ status: 3, status_name: 'Resolved', classification: 'true_positive' });
    expect(after.status_history).toEqual([expect.objectContaining({ from_status: 1, to_status: 3, changed_by: 'tester' })]);
    expect((await get<{ total: number }>(token, '/api/v1/incidents?status=3')).total).toBe(1);
    await api.request('PUT', `/api/v1/incidents/${incident!.id}/status`, { token, body: { status: 4 } });
    expect((await get<IncidentOut>(token, `/api/v1/incidents/${incident!.id}`)).classification).toBe('false_positive');
  });
});

describe('lead rule stage lifecycle', () => {
  const failure = (ip: string, second: number) => `Nov 20 10:01:${String(second).padStart(2, '0')} bastion sshd[42]: Failed password for root from ${ip} port 4${second} ssh2`;

  it('fires once for a window even when the stage is restarted in the middle of it', async () => {
    api = await startTestApi({ stages: ALL_STAGES });
    const token = api.token();
    await api.request('POST', '/api/v1/lead-rules', { token, body: RULE });
    await ingestLines(token, [1, 2, 3].map((s) => failure('198.51.100.77', s)));
    await drained();
    expect(await ruleObservations(token)).toHaveLength(0);

    const dataDir = api.dataDir;
    await api.close(); // the whole process goes away; window state must come back from disk
    api = await startTestApi({ dataDir, stages: ALL_STAGES });
    await ingestLines(token, [4, 5, 6].map((s) => failure('198.51.100.77', s)));
    await drained();
    const fired = await eventually(async () => {
      const found = await ruleObservations(token);
      expect(found).toHaveLength(1);
      return found;
    });
    expect(fired[0]!.description).toContain('6 matching events');
    await api.close();
  });

  it('applies created, changed and disabled rules without a restart', async () => {
    api = await startTestApi({ stages: ALL_STAGES });
    try {
      const token = api.token();
      const created = await api.request('POST', '/api/v1/lead-rules', { token, body: { name: 'root logins', severity: 'low', conditions: { pattern: 'user.name:root' } } });
      const id = (created.body.data as { id: string }).id;
      await ingestLines(token, [failure('192.0.2.1', 1)]);
      await eventually(async () => expect(await ruleObservations(token)).toHaveLength(1));

      await api.request('PUT', `/api/v1/lead-rules/${id}`, { token, body: { severity: 'critical' } });
      await ingestLines(token, [failure('192.0.2.2', 2)]);
      await eventually(async () => expect((await ruleObservations(token)).map((o) => o.severity).sort()).toEqual(['critical', 'low']));

      await api.request('PUT', `/api/v1/lead-rules/${id}`, { token, body: { enabled: false } });
      await ingestLines(token, [failure('192.0.2.3', 3)]);
      await drained();
      expect(await ruleObservations(token)).toHaveLength(2);
    } finally {
      await api.close();
    }
  });
});

describe('old-style PAM log (sshd(pam_unix)), threshold rule grouped by source.ip', () => {
  // Written in the format older Red Hat hosts log: the PAM module in the tag, the peer in rhost=.
  const attackers = { '203.0.113.10': 7, '198.51.100.20': 4, '192.0.2.30': 2, '203.0.113.40': 12 };
  const lines: string[] = [];
  let second = 0;
  for (const [ip, count] of Object.entries(attackers)) {
    for (let i = 0; i < count; i++, second += 7) {
      const [m, s] = [Math.floor(second / 60), second % 60];
      lines.push(`Mar 12 03:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')} web1 sshd(pam_unix)[${19_000 + second}]: authentication failure; logname= uid=0 euid=0 tty=NODEVssh ruser= rhost=${ip}  user=root`);
    }
  }
  lines.push('Mar 12 03:30:00 web1 sshd(pam_unix)[20001]: session opened for user alice by (uid=0)');

  /** Observations a tumbling 10-minute window per rhost with threshold 3 gives, counted from the text alone. */
  function expected(): Map<string, number> {
    const perWindow = new Map<string, number>();
    for (const line of lines) {
      const m = /^\w{3} +\d+ \d\d:(\d\d):\d\d .*authentication failure; .*rhost=(\S+)/.exec(line);
      if (!m) continue;
      const key = `${m[2]}|${Math.floor(Number(m[1]) / 10)}`;
      perWindow.set(key, (perWindow.get(key) ?? 0) + 1);
    }
    const firings = new Map<string, number>();
    for (const [key, n] of perWindow) if (n >= 3) firings.set(key.split('|')[0]!, (firings.get(key.split('|')[0]!) ?? 0) + 1);
    return firings;
  }

  it('makes one observation per attacking address that crossed the threshold, linked to its node', async () => {
    api = await startTestApi({ stages: ALL_STAGES });
    try {
      const token = api.token();
      const rule = { name: 'PAM brute force', severity: 'high', conditions: { pattern: 'event.outcome:failure', source: 'syslog', threshold: 3, window: '10m', group_by: 'source.ip' } };
      expect((await api.request('POST', '/api/v1/lead-rules', { token, body: rule })).status).toBe(201);
      await ingestInto(api, token, lines, 'syslog');
      await allDrained(api);
      const want = expected();
      expect([...want.keys()].sort()).toEqual(['198.51.100.20', '203.0.113.10', '203.0.113.40']);
      const observations = await eventually(async () => {
        const found = await ruleObservations(token);
        expect(found).toHaveLength([...want.values()].reduce((a, b) => a + b, 0));
        return found;
      });
      for (const [ip, firings] of want) {
        const node = (await get<{ nodes: { id: string; value: string }[] }>(token, `/api/v1/nodes?type=IP&value=${ip}`)).nodes.find((n) => n.value === ip)!;
        expect(node, ip).toBeDefined();
        expect(observations.filter((o) => o.node_ids.includes(node.id)), ip).toHaveLength(firings);
      }
    } finally {
      await api.close();
    }
  });
});

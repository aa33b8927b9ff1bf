// Threat intelligence (issue 17) on the embedded runtime with every stage:
// feeds served by a local HTTP server (a MISP feed from fixture files, block
// lists, STIX bundles), the nine threatfeed rows of SPEC 4.11 per contract,
// matching at ingest into intel observations and incidents, expiry and decay,
// revocation, retro-hunt with the original event times and its dry run, and
// publications whose STIX output is validated against STIX 2.1 JSON schemas
// (test/fixtures/stix21-schemas), also as served over TAXII 2.1.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundClient } from '../../lib/outbound/client.js';
import { SecretBox } from '../../lib/secret-box.js';
import { runDueSyncs } from '../../threatintel/schedule.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually } from '../helpers/buses.js';
import { finishedJob, startFeedServer, stixIndicator, syncNow, type FeedServer } from '../helpers/feeds.js';
import { drained, FUSED_STAGES } from '../helpers/pipeline.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');
const MISP_EVENT = '5f0c9a1e-3c2b-4d7e-9a41-0b6f2d8c1e01';

interface Entry {
  id: string;
  type: string;
  value: string;
  status: string;
  matched_at_ingest: boolean;
  note: string | null;
  score: number;
  confidence: number;
  labels: string[];
  valid_until: string;
  feeds: { subscription_id: string; name: string; live: boolean; reference: string }[];
  hit_count: number;
  last_hit_at: string | null;
  sightings?: { artifact_id: string; seen_at: string; retrospective: boolean }[];
}

interface ObservationView {
  id: string;
  type: string;
  description: string;
  severity: string;
  node_ids: string[];
  artifact_ids: string[];
  tags: string[];
  created_at: string;
}

function stixSchemas(): { bundle: ValidateFunction; indicator: ValidateFunction; identity: ValidateFunction } {
  const ajv = new Ajv({ allErrors: true, strict: false });
  for (const file of ['common.json', 'indicator.json', 'identity.json', 'bundle.json']) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(FIXTURES, 'stix21-schemas', file), 'utf8')));
  const get = (name: string) => ajv.getSchema(`https://cairn.invalid/stix21/${name}`)!;
  return { bundle: get('bundle.json'), indicator: get('indicator.json'), identity: get('identity.json') };
}

describe('threat intelligence', () => {
  let api: TestApi;
  let feeds: FeedServer;

  beforeAll(async () => {
    feeds = await startFeedServer();
    api = await startTestApi({ stages: FUSED_STAGES, env: { CAIRN_OUTBOUND_ALLOW: '127.0.0.1', CAIRN_RETROHUNT_DAYS: '30' } });
  });

  afterAll(async () => {
    await api?.close();
    await feeds?.close();
  });

  const org = () => `intel-${randomUUID().slice(0, 8)}`;

  async function subscribe(token: string, body: Record<string, unknown>): Promise<{ id: string; job_id: string | null; settings: Record<string, unknown> }> {
    const res = await api.request('POST', '/api/v1/threatfeed/subscriptions', { token, body });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { id: string; job_id: string | null; settings: Record<string, unknown> };
  }

  async function library(token: string, query = ''): Promise<{ indicators: Entry[]; total: number }> {
    const res = await api.request('GET', `/api/v1/threatfeed/library${query}`, { token });
    expect(res.status, res.text).toBe(200);
    return res.body.data as { indicators: Entry[]; total: number };
  }

  async function search(token: string, query: string): Promise<Entry[]> {
    const res = await api.request('GET', `/api/v1/threatfeed/search?${query}`, { token });
    expect(res.status, res.text).toBe(200);
    return (res.body.data as { indicators: Entry[] }).indicators;
  }

  async function intelObservations(token: string): Promise<ObservationView[]> {
    const res = await api.request('GET', '/api/v1/observations?type=intel&limit=1000', { token });
    expect(res.status, res.text).toBe(200);
    return (res.body.data as { observations: ObservationView[] }).observations;
  }

  /** Posts ECS-shaped JSON events (the generic JSON parser keeps ECS keys). */
  async function ingest(token: string, events: Record<string, unknown>[]): Promise<string[]> {
    const res = await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: events.map((e) => ({ source: 'app', raw: JSON.stringify(e), timestamp: e['@timestamp'] })) } });
    expect(res.status, res.text).toBe(202);
    await drained(api);
    return (res.body.data as { ids: string[] }).ids;
  }

  it('answers the nine threatfeed rows per contract: 401, 403, 400 naming the field, 404, list shape', async () => {
    const token = api.token('all', org());
    const reader = api.token(['threatfeed:read'], org());
    const writer = api.token(['threatfeed:read', 'threatfeed:write'], org());
    const rows: [string, string, string, unknown?][] = [
      ['GET', '/api/v1/threatfeed/subscriptions', 'threatfeed:read'],
      ['POST', '/api/v1/threatfeed/subscriptions', 'threatfeed:write', { name: 'x', kind: 'plain', url: `${feeds.url}/none.txt` }],
      ['DELETE', `/api/v1/threatfeed/subscriptions/${randomUUID()}`, 'threatfeed:write'],
      ['GET', '/api/v1/threatfeed/publications', 'threatfeed:read'],
      ['POST', '/api/v1/threatfeed/publications', 'threatfeed:manage', { name: 'x' }],
      ['GET', '/api/v1/threatfeed/jobs', 'threatfeed:read'],
      ['POST', '/api/v1/threatfeed/sync', 'threatfeed:write', {}],
      ['GET', '/api/v1/threatfeed/library', 'threatfeed:read'],
      ['GET', '/api/v1/threatfeed/search?value=192.0.2.1', 'threatfeed:read'],
    ];
    const none = api.token(['signals:read'], org());
    for (const [method, route, permission, body] of rows) {
      const anonymous = await api.request(method, route, { body });
      expect(anonymous.status, `${method} ${route}`).toBe(401);
      expect(anonymous.body.error?.code).toBe('unauthorized');
      const forbidden = await api.request(method, route, { token: permission === 'threatfeed:read' ? none : permission === 'threatfeed:write' ? reader : writer, body });
      expect(forbidden.status, `${method} ${route}`).toBe(403);
      expect(forbidden.body.error?.details).toEqual({ required: permission });
    }
    for (const [key, route] of [['subscriptions', 'subscriptions'], ['publications', 'publications'], ['jobs', 'jobs'], ['indicators', 'library'], ['indicators', 'search?value=x']] as const) {
      const res = await api.request('GET', `/api/v1/threatfeed/${route}${route.includes('?') ? '&' : '?'}limit=5&offset=0`, { token });
      expect(res.status, res.text).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toMatchObject({ [key]: [], total: 0, limit: 5, offset: 0 });
    }
    const bad = async (body: unknown, field: RegExp) => {
      const res = await api.request('POST', '/api/v1/threatfeed/subscriptions', { token, body });
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toMatch(field);
      return res;
    };
    await bad({ name: 'x', kind: 'rss', url: `${feeds.url}/a` }, /^invalid body: kind: kind must be one of: taxii, misp, stix-bundle, plain, csv/);
    await bad({ name: 'x', kind: 'plain', url: 'ftp://example.com/list' }, /^invalid body: url: url must be an http/);
    await bad({ name: 'x', kind: 'plain', url: 'not a url' }, /^invalid body: url: /);
    await bad({ name: 'x', kind: 'plain', url: 'http://10.1.2.3/list.txt' }, /^invalid body: url: .*CAIRN_OUTBOUND_ALLOW/);
    await bad({ name: 'x', kind: 'taxii', url: `${feeds.url}/taxii2/` }, /^invalid body: settings.collection_id: collection_id is required/);
    await bad({ name: 'x', kind: 'taxii', url: `${feeds.url}/taxii2/`, settings: { collection_id: 'c', auth_type: 'bearer' } }, /^invalid body: settings.token: token is required/);
    await bad({ name: 'x', kind: 'plain', url: `${feeds.url}/a`, poll_interval: '5s' }, /^invalid body: poll_interval: poll_interval must be at least 1m/);
    await bad({ name: 'x', kind: 'plain', url: `${feeds.url}/a`, confidence: 101 }, /^invalid body: confidence: /);
    expect((await api.request('GET', '/api/v1/threatfeed/library?limit=1001', { token })).status).toBe(400);
    expect((await api.request('GET', '/api/v1/threatfeed/library?type=ftp', { token })).body.message).toMatch(/^invalid query: type: type must be one of/);
    expect((await api.request('GET', '/api/v1/threatfeed/search', { token })).body.message).toMatch(/^invalid query: value: value is required/);
    expect((await api.request('DELETE', '/api/v1/threatfeed/subscriptions/not-a-uuid', { token })).status).toBe(400);
    const missing = await api.request('DELETE', `/api/v1/threatfeed/subscriptions/${randomUUID()}`, { token });
    expect([missing.status, missing.body.error?.code]).toEqual([404, 'not_found']);
    expect((await api.request('POST', '/api/v1/threatfeed/sync', { token, body: { subscription_id: randomUUID() } })).status).toBe(404);
    expect((await api.request('GET', `/api/v1/threatfeed/publications/${randomUUID()}/bundle`, { token })).status).toBe(404);
    // The OpenAPI document describes every row with its permission.
    const doc = (await api.request('GET', '/api/v1/openapi.json')).body as unknown as { paths: Record<string, Record<string, { 'x-permission'?: string }>> };
    expect(doc.paths['/api/v1/threatfeed/subscriptions']!.post!['x-permission']).toBe('threatfeed:write');
    expect(doc.paths['/api/v1/threatfeed/publications']!.post!['x-permission']).toBe('threatfeed:manage');
    expect(doc.paths['/api/v1/threatfeed/search']!.get!['x-permission']).toBe('threatfeed:read');
    const badIndicator = await api.request('POST', '/api/v1/threatfeed/publications', { token, body: { name: 'p', indicators: [{ value: '192.0.2.1' }, { value: 'not an indicator!' }] } });
    expect([badIndicator.status, badIndicator.body.message]).toEqual([400, expect.stringMatching(/^invalid body: indicators.1.value: /)]);
  });

  it('keeps feed credentials sealed at rest and redacted in every answer; an unreachable feed is a failed job', async () => {
    const token = api.token('all', org());
    const secret = `s3cret-${randomUUID()}`;
    const created = await subscribe(token, { name: 'closed feed', kind: 'plain', url: 'http://127.0.0.1:9/list.txt', settings: { auth_type: 'bearer', token: secret } });
    expect(created.settings).toMatchObject({ auth_type: 'bearer', token: '[redacted]' });
    const listed = await api.request('GET', '/api/v1/threatfeed/subscriptions', { token });
    expect(listed.text).not.toContain(secret);
    expect(listed.text).toContain('[redacted]');
    const stored = await api.runtime.store.query({ query: 'SELECT settings FROM threatfeed_subscriptions WHERE id = {id:UUID}', query_params: { id: created.id }, format: 'JSONEachRow' });
    const settings = JSON.parse(((await stored.json()) as { settings: string }[])[0]!.settings) as { token: string };
    expect(settings.token).toMatch(/^v1:/);
    expect(settings.token).not.toContain(secret);
    const job = await finishedJob(api, token, created.id);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/cannot reach 127\.0\.0\.1:9/);
  });

  it('takes the to_ids attributes of a MISP feed into the library, and not the others', async () => {
    const token = api.token('all', org());
    feeds.set('/misp/manifest.json', fs.readFileSync(path.join(FIXTURES, 'threatintel/misp/manifest.json'), 'utf8'), 'application/json');
    feeds.set(`/misp/${MISP_EVENT}.json`, fs.readFileSync(path.join(FIXTURES, `threatintel/misp/${MISP_EVENT}.json`), 'utf8'), 'application/json');
    const sub = await subscribe(token, { name: 'CERT MISP', kind: 'misp', url: `${feeds.url}/misp/`, lifetime: '365d' });
    const job = await finishedJob(api, token, sub.id);
    // Fetched 9: one attribute has a type MISP does not define ("constructor"), which is passed over, not rejected.
    expect(job).toMatchObject({ status: 'succeeded', fetched: 9, added: 4, rejected: 1, cursor: '1793500000' });
    const { indicators } = await library(token, '?limit=100');
    expect(indicators.map((i) => `${i.type} ${i.value}`).sort()).toEqual([
      'domain login-portal.example',
      'ipv4-addr 198.51.100.61',
      'ipv4-addr 198.51.100.63',
      'sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    ]);
    const c2 = indicators.find((i) => i.value === '198.51.100.61')!;
    expect(c2).toMatchObject({ status: 'active', matched_at_ingest: true, confidence: 50, feeds: [{ subscription_id: sub.id, name: 'CERT MISP', reference: 'misp:0a1b2c3d-0001-4000-8000-000000000001' }] });
    expect(c2.labels).toContain('tlp:green');
    // Nothing changed in the feed: the next run fetches no event again.
    const again = await syncNow(api, token, sub.id);
    expect(again).toMatchObject({ status: 'succeeded', fetched: 0, added: 0 });
    // A second feed naming the same address merges into the same entry.
    feeds.set('/also-c2.txt', '198.51.100.61\n');
    const second = await subscribe(token, { name: 'partner list', kind: 'plain', url: `${feeds.url}/also-c2.txt`, confidence: 95 });
    expect(await finishedJob(api, token, second.id)).toMatchObject({ status: 'succeeded', added: 1 });
    const merged = await library(token, '?limit=100');
    expect(merged.total).toBe(4);
    const entry = merged.indicators.find((i) => i.value === '198.51.100.61')!;
    expect(entry.confidence).toBe(95);
    expect(entry.feeds.map((f) => f.name).sort()).toEqual(['CERT MISP', 'partner list']);
    expect((await library(token, `?feed=${second.id}`)).indicators.map((i) => i.value)).toEqual(['198.51.100.61']);
  });

  it('runs each subscription again once its poll interval has passed, one run per interval', async () => {
    const token = api.token('all', org());
    feeds.set('/scheduled.txt', '192.0.2.200\n');
    const sub = await subscribe(token, { name: 'every minute', kind: 'plain', url: `${feeds.url}/scheduled.txt`, poll_interval: '1m' });
    await finishedJob(api, token, sub.id);
    const deps = { ...api.runtime, outbound: new OutboundClient(api.runtime.config.outbound), box: new SecretBox(api.runtime.config.masterKey!) };
    const mine = (jobs: { subscription_id: string }[]) => jobs.filter((j) => j.subscription_id === sub.id);
    expect(mine(await runDueSyncs(deps))).toEqual([]);
    const later = Date.now() + 61_000;
    expect(mine(await runDueSyncs(deps, later))).toHaveLength(1);
    const job = await finishedJob(api, token, sub.id, 2);
    expect(job).toMatchObject({ status: 'succeeded', fetched: 1, added: 0 });
    const listed = await api.request('GET', `/api/v1/threatfeed/jobs?subscription_id=${sub.id}`, { token });
    expect((listed.body.data as { jobs: { trigger: string }[] }).jobs.map((j) => j.trigger)).toEqual(['schedule', 'manual']);
    // Another process checking in the same interval does not run it again.
    expect(mine(await runDueSyncs(deps, later))).toEqual([]);
  });

  it('matches events at ingest: an address, an address in a CIDR, a subdomain, a hash; each an intel observation and an incident', async () => {
    const token = api.token('all', org());
    feeds.set('/blocklist.txt', '# a block list\n198.51.100.23\n203.0.113.128/25 ; SBL-test\nevil-corp.example\n\nnot/an indicator\n');
    feeds.set('/hashes.csv', 'sha256,family\n2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae,TestFam\n');
    const list = await subscribe(token, { name: 'block list', kind: 'plain', url: `${feeds.url}/blocklist.txt`, confidence: 90 });
    const csv = await subscribe(token, { name: 'hash list', kind: 'csv', url: `${feeds.url}/hashes.csv`, settings: { column: 'sha256', header: true } });
    expect(await finishedJob(api, token, list.id)).toMatchObject({ status: 'succeeded', fetched: 4, added: 3, rejected: 1 });
    expect(await finishedJob(api, token, csv.id)).toMatchObject({ status: 'succeeded', added: 1 });
    const now = new Date().toISOString();
    const [direct, inRange, subdomain, hash, clean] = await ingest(token, [
      { '@timestamp': now, source: { ip: '198.51.100.23' }, destination: { ip: '10.0.0.5' }, event: { category: 'network' } },
      { '@timestamp': now, source: { ip: '10.0.0.7' }, destination: { ip: '203.0.113.200' }, event: { category: 'network' } },
      { '@timestamp': now, source: { ip: '10.0.0.8' }, dns: { question: { name: 'a.b.EVIL-CORP.example.' } } },
      { '@timestamp': now, host: { hostname: 'ws01' }, file: { hash: { sha256: '2C26B46B68FFC68FF99B453C1D30413413422D706483BFA0F98A5E886266E7AE' } } },
      { '@timestamp': now, source: { ip: '203.0.113.5' }, dns: { question: { name: 'corp.example' } } },
    ]);
    const observations = await eventually(async () => {
      const found = await intelObservations(token);
      expect(found).toHaveLength(4);
      return found;
    });
    const byArtifact = (id: string) => observations.find((o) => o.artifact_ids.includes(id));
    expect(byArtifact(direct!)!.description).toMatch(/^Threat intel match: ipv4-addr 198\.51\.100\.23 from "block list" \(confidence 90, score \d+(\.\d)?\) seen in source\.ip/);
    expect(byArtifact(direct!)).toMatchObject({ severity: 'high', tags: expect.arrayContaining(['intel']) });
    expect(byArtifact(inRange!)!.description).toContain('ipv4-cidr 203.0.113.128/25');
    expect(byArtifact(subdomain!)!.description).toContain('domain evil-corp.example');
    expect(byArtifact(hash!)!.description).toContain('from "hash list" (confidence 50');
    expect(observations.some((o) => o.artifact_ids.includes(clean!))).toBe(false);
    // Linked to the nodes of the event, and each a lead the correlator turned into an incident.
    expect(byArtifact(direct!)!.node_ids.length).toBeGreaterThanOrEqual(2);
    await eventually(async () => {
      const res = await api.request('GET', '/api/v1/incidents?limit=100', { token });
      const incidents = (res.body.data as { incidents: { title: string }[] }).incidents;
      expect(incidents.some((i) => i.title.startsWith('Threat intel ipv4-addr 198.51.100.23'))).toBe(true);
    });
    // The library counts the hit; search finds an address inside the CIDR, and says which artifact saw it.
    const [network] = await search(token, 'value=203.0.113.200&seen=true');
    expect(network).toMatchObject({ type: 'ipv4-cidr', value: '203.0.113.128/25', hit_count: 1, sightings: [{ artifact_id: inRange, retrospective: false }] });
    expect(await search(token, 'value=203.0.113.5')).toEqual([]);
    expect((await search(token, 'value=evil&match=prefix'))[0]).toMatchObject({ value: 'evil-corp.example' });
    expect((await search(token, `value=198.51.100.23&feed=${csv.id}`))).toEqual([]);
    expect((await library(token, '?seen=false&type=ipv4-addr')).indicators).toEqual([]);
  });

  it('stops matching an indicator past valid_until or decayed below its threshold, keeps unsupported patterns unmatched, and removes revoked objects', async () => {
    const token = api.token('all', org());
    const day = 86_400_000;
    const long = new Date(Date.now() - 40 * day).toISOString();
    const bundle = (objects: object[]) => ({ type: 'bundle', id: `bundle--${randomUUID()}`, objects });
    const expired = stixIndicator(`indicator--${randomUUID()}`, "[ipv4-addr:value = '192.0.2.77']", { created: long, validUntil: new Date(Date.now() - day).toISOString() });
    const decayed = stixIndicator(`indicator--${randomUUID()}`, "[ipv4-addr:value = '192.0.2.78']", { created: new Date(Date.now() - 20 * day).toISOString(), confidence: 30 });
    const fresh = stixIndicator(`indicator--${randomUUID()}`, "[ipv4-addr:value = '192.0.2.79'] OR [domain-name:value = 'fresh.example']");
    const complex = stixIndicator(`indicator--${randomUUID()}`, "[ipv4-addr:value = '192.0.2.80' AND network-traffic:dst_port = 443]");
    feeds.set('/expiry.json', bundle([expired, decayed, fresh, complex, { type: 'malware', id: `malware--${randomUUID()}` }]));
    const sub = await subscribe(token, { name: 'bundle', kind: 'stix-bundle', url: `${feeds.url}/expiry.json`, lifetime: '30d', score_threshold: 20 });
    expect(await finishedJob(api, token, sub.id)).toMatchObject({ status: 'succeeded', fetched: 5, added: 5, expired: 1 });
    const { indicators } = await library(token, '?limit=100');
    const status = Object.fromEntries(indicators.map((i) => [i.value, i.status]));
    expect(status).toMatchObject({ '192.0.2.77': 'expired', '192.0.2.78': 'decayed', '192.0.2.79': 'active', 'fresh.example': 'active' });
    const kept = indicators.find((i) => i.type === 'stix-pattern')!;
    expect(kept).toMatchObject({ matched_at_ingest: false, status: 'not_matched', value: "[ipv4-addr:value = '192.0.2.80' AND network-traffic:dst_port = 443]" });
    expect(kept.note).toMatch(/^not matched at ingest: /);
    expect((await library(token, '?status=expired')).total).toBe(1);
    const now = new Date().toISOString();
    const [, , live] = await ingest(token, ['192.0.2.77', '192.0.2.78', '192.0.2.79', '192.0.2.80'].map((ip) => ({ '@timestamp': now, source: { ip }, destination: { ip: '10.0.0.9' } })));
    await eventually(async () => expect((await intelObservations(token)).flatMap((o) => o.artifact_ids)).toEqual([live]));
    // The feed revokes the fresh indicator: it leaves the library and stops matching.
    feeds.set('/expiry.json', bundle([expired, decayed, { ...fresh, modified: new Date().toISOString(), revoked: true }, complex]));
    expect(await syncNow(api, token, sub.id)).toMatchObject({ status: 'succeeded', removed: 2 });
    expect((await library(token, '?limit=100')).indicators.map((i) => i.value)).not.toContain('192.0.2.79');
  });

  it('retro-hunts stored events for new indicators with the original event time, after a dry run that counts them', async () => {
    const token = api.token('all', org());
    const then = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const [old] = await ingest(token, [{ '@timestamp': then, source: { ip: '198.51.100.99' }, destination: { ip: '10.1.1.1' }, event: { category: 'network' } }]);
    feeds.set('/retro.txt', '198.51.100.99\n198.51.100.100\n');
    const dry = await api.request('POST', '/api/v1/threatfeed/subscriptions', { token, body: { name: 'retro', kind: 'plain', url: `${feeds.url}/retro.txt`, dry_run: true } });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.data).toEqual({ dry_run: true, fetched: 2, indicators: 2, matchable: 2, rejected: 0, matching_events: 1, sightings: 1, days: 30, error: null });
    expect((await library(token)).total).toBe(0);
    expect((await api.request('GET', '/api/v1/threatfeed/subscriptions', { token })).body.data).toMatchObject({ total: 0 });
    const sub = await subscribe(token, { name: 'retro', kind: 'plain', url: `${feeds.url}/retro.txt` });
    expect(await finishedJob(api, token, sub.id)).toMatchObject({ status: 'succeeded', added: 2, retro_sightings: 1 });
    const [retro] = await eventually(async () => {
      const found = await intelObservations(token);
      expect(found).toHaveLength(1);
      return found;
    });
    expect(retro!.artifact_ids).toEqual([old]);
    expect(retro!.tags).toContain('retrospective');
    expect(retro!.created_at).toBe(then);
    expect(retro!.description).toMatch(/^Retrospective threat intel match: ipv4-addr 198\.51\.100\.99 .* stored before the indicator arrived, first at /);
    const [entry] = await search(token, 'value=198.51.100.99');
    expect(entry).toMatchObject({ hit_count: 1, last_hit_at: then, sightings: [{ artifact_id: old, seen_at: then, retrospective: true }] });
    // Unsubscribing takes the feed's indicators out of the library.
    expect((await api.request('DELETE', `/api/v1/threatfeed/subscriptions/${sub.id}`, { token })).status).toBe(200);
    expect((await library(token)).total).toBe(0);
  });

  it('resumes a TAXII feed after a run that died mid-way from its last stored page (added_after), the library as of that page', async () => {
    const token = api.token('all', org());
    const [t1, t2] = ['2026-11-20T10:00:00.000Z', '2026-11-20T11:00:00.000Z'];
    const taxiiHeaders = (last: string) => ({ 'content-type': 'application/taxii+json;version=2.1', 'X-TAXII-Date-Added-First': last, 'X-TAXII-Date-Added-Last': last });
    const indicator = (ip: string) => stixIndicator(`indicator--${randomUUID()}`, `[ipv4-addr:value = '${ip}']`);
    let secondPageFails = true;
    feeds.route('/fake-taxii/', () => ({ body: { title: 'a TAXII server', default: '/fake-taxii/root/', api_roots: ['/fake-taxii/root/'] }, headers: { 'content-type': 'application/taxii+json;version=2.1' } }));
    feeds.route('/fake-taxii/root/collections/c1/objects/', (url) => {
      if (url.searchParams.get('next') !== 'page-2' && url.searchParams.get('added_after') !== t1) return { body: { more: true, next: 'page-2', objects: [indicator('192.0.2.51')] }, headers: taxiiHeaders(t1) };
      if (secondPageFails) return { status: 500, body: 'the server broke' };
      return { body: { more: false, objects: [indicator('192.0.2.52')] }, headers: taxiiHeaders(t2) };
    });
    const sub = await subscribe(token, { name: 'flaky TAXII', kind: 'taxii', url: `${feeds.url}/fake-taxii/`, settings: { collection_id: 'c1', page_size: 1 } });
    const died = await finishedJob(api, token, sub.id);
    expect(died).toMatchObject({ status: 'failed', fetched: 1, added: 1, cursor: t1, error: expect.stringMatching(/\/fake-taxii\/root\/collections\/c1\/objects\/ answered 500/) });
    expect((await library(token)).indicators.map((i) => i.value)).toEqual(['192.0.2.51']);
    secondPageFails = false;
    const requestsBefore = feeds.requests.length;
    expect(await syncNow(api, token, sub.id)).toMatchObject({ status: 'succeeded', fetched: 1, added: 1, cursor: t2 });
    const objectRequests = feeds.requests.slice(requestsBefore).filter((r) => r.includes('/objects/'));
    expect(objectRequests).toEqual([`/fake-taxii/root/collections/c1/objects/?limit=1&added_after=${encodeURIComponent(t1)}`]);
    expect((await library(token)).indicators.map((i) => i.value).sort()).toEqual(['192.0.2.51', '192.0.2.52']);
  });

  it('publishes hand-picked indicators as valid STIX 2.1, as a bundle and over TAXII 2.1 with paging, filters, media types and errors', async () => {
    const orgId = org();
    const token = api.token('all', orgId);
    const reader = api.token(['threatfeed:read'], org());
    const schemas = stixSchemas();
    const writerOnly = await api.request('POST', '/api/v1/threatfeed/publications', { token: api.token(['threatfeed:read', 'threatfeed:write']), body: { name: 'x' } });
    expect(writerOnly.status).toBe(403);
    const created = await api.request('POST', '/api/v1/threatfeed/publications', {
      token,
      body: { name: 'Our blocklist', description: 'hand-picked', include_true_positives: true, indicators: [{ value: '192.0.2.10' }, { value: 'bad.example', type: 'domain' }, { value: '198.51.100.0/24' }], lifetime: '90d' },
    });
    expect(created.status, created.text).toBe(201);
    const publication = created.body.data as { id: string; object_count: number; collection_url: string; bundle_url: string };
    expect(publication.object_count).toBe(3);
    expect(publication.collection_url).toMatch(new RegExp(`/taxii2/cairn/collections/${publication.id}/$`));
    const bundleRes = await api.request('GET', `/api/v1/threatfeed/publications/${publication.id}/bundle`, { token });
    expect(bundleRes.headers.get('content-type')).toBe('application/stix+json;version=2.1');
    const bundle = JSON.parse(bundleRes.text) as { objects: { type: string; pattern?: string }[] };
    expect(schemas.bundle(bundle), JSON.stringify(schemas.bundle.errors)).toBe(true);
    expect(bundle.objects.filter((o) => o.type === 'indicator').map((o) => o.pattern).sort()).toEqual([
      "[domain-name:value = 'bad.example']",
      "[ipv4-addr:value = '192.0.2.10']",
      "[ipv4-addr:value = '198.51.100.0/24']",
    ]);
    // The schema check is not vacuous: an indicator without valid_from fails it.
    expect(schemas.indicator({ ...bundle.objects.find((o) => o.type === 'indicator'), valid_from: undefined })).toBe(false);

    const taxii = (route: string, headers: Record<string, string> = { accept: 'application/taxii+json;version=2.1' }, as = reader) =>
      fetch(`${api.url}${route}`, { headers: { ...headers, ...(as ? { authorization: `Bearer ${as}` } : {}) } });
    const discovery = await taxii('/taxii2/');
    expect(discovery.status).toBe(200);
    expect(discovery.headers.get('content-type')).toBe('application/taxii+json;version=2.1');
    const apiRootUrl = ((await discovery.json()) as { api_roots: string[] }).api_roots[0]!;
    const root = new URL(apiRootUrl).pathname;
    expect(await (await taxii(root)).json()).toMatchObject({ versions: ['application/taxii+json;version=2.1'] });
    expect(await (await taxii(`${root}collections/`)).json()).toEqual({ collections: [] });
    const collections = (await (await taxii(`${root}collections/`, undefined, token)).json()) as { collections: { id: string; can_read: boolean; can_write: boolean }[] };
    expect(collections.collections).toEqual([expect.objectContaining({ id: publication.id, can_read: true, can_write: false, media_types: ['application/stix+json;version=2.1'] })]);
    const objectsPath = `${root}collections/${publication.id}/objects/`;
    const first = await taxii(`${objectsPath}?limit=2`, undefined, token);
    const page1 = (await first.json()) as { more: boolean; next: string; objects: { id: string; type: string }[] };
    expect(page1.more).toBe(true);
    expect(page1.objects).toHaveLength(2);
    expect(first.headers.get('x-taxii-date-added-first')).toBeTruthy();
    const page2 = (await (await taxii(`${objectsPath}?limit=2&next=${page1.next}`, undefined, token)).json()) as { more: boolean; objects: { id: string; type: string }[] };
    expect(page2.more).toBe(false);
    const all = [...page1.objects, ...page2.objects];
    expect(all).toHaveLength(4);
    for (const object of all) {
      const validate = object.type === 'indicator' ? schemas.indicator : schemas.identity;
      expect(validate(object), JSON.stringify(validate.errors)).toBe(true);
    }
    const indicatorsOnly = (await (await taxii(`${objectsPath}?match[type]=indicator`, undefined, token)).json()) as { objects: { id: string }[] };
    expect(indicatorsOnly.objects).toHaveLength(3);
    const one = indicatorsOnly.objects[0]!.id;
    expect(((await (await taxii(`${objectsPath}?match[id]=${one}`, undefined, token)).json()) as { objects: { id: string }[] }).objects.map((o) => o.id)).toEqual([one]);
    expect(((await (await taxii(`${objectsPath}${one}/`, undefined, token)).json()) as { objects: { id: string }[] }).objects.map((o) => o.id)).toEqual([one]);
    const manifest = (await (await taxii(`${root}collections/${publication.id}/manifest/`, undefined, token)).json()) as { objects: { id: string; date_added: string; version: string; media_type: string }[] };
    expect(manifest.objects).toHaveLength(4);
    expect(manifest.objects[0]).toMatchObject({ media_type: 'application/stix+json;version=2.1' });
    const later = new Date(Date.now() + 60_000).toISOString();
    expect(((await (await taxii(`${objectsPath}?added_after=${later}`, undefined, token)).json()) as { objects: unknown[] }).objects).toEqual([]);
    // TAXII errors: error resources in the TAXII media type.
    const notAcceptable = await taxii(objectsPath, { accept: 'application/xml' }, token);
    expect([notAcceptable.status, notAcceptable.headers.get('content-type')]).toEqual([406, 'application/taxii+json;version=2.1']);
    expect(await notAcceptable.json()).toMatchObject({ title: 'Not acceptable', http_status: '406' });
    expect(await (await taxii(objectsPath, undefined, null as unknown as string)).json()).toMatchObject({ http_status: '401' });
    expect((await taxii(objectsPath, undefined, api.token(['signals:read']))).status).toBe(403);
    expect((await taxii(`${root}collections/${randomUUID()}/objects/`, undefined, token)).status).toBe(404);
    expect((await taxii(`${objectsPath}?added_after=yesterday`, undefined, token)).status).toBe(400);
    const write = await fetch(`${api.url}${objectsPath}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, accept: 'application/taxii+json;version=2.1', 'content-type': 'application/taxii+json;version=2.1' }, body: '{}' });
    expect([write.status, write.headers.get('content-type'), ((await write.json()) as { http_status: string }).http_status]).toEqual([405, 'application/taxii+json;version=2.1', '405']);
    // cairn reads its own collection as a TAXII client would, two objects a page (next).
    const own = await api.request('POST', '/api/v1/threatfeed/subscriptions', {
      token,
      body: { name: 'ourselves', kind: 'taxii', url: `${api.url}/taxii2/`, settings: { collection_id: publication.id, page_size: 2, auth_type: 'bearer', token: api.token(['threatfeed:read'], orgId) } },
    });
    expect(own.status, own.text).toBe(201);
    const read = await finishedJob(api, token, (own.body.data as { id: string }).id);
    expect(read).toMatchObject({ status: 'succeeded', fetched: 4, added: 3, error: null });
  });
});

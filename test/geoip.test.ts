// GeoIP end to end: events carry country and AS fields that search and lead
// rules use, and IP nodes show where their address is registered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './helpers/api.js';
import { eventually } from './helpers/buses.js';
import { FUSED_STAGES, drained, get, ingestLines } from './helpers/pipeline.js';

let api: TestApi;

const failure = (ip: string, second: number) => `Nov 20 10:01:${String(second).padStart(2, '0')} bastion sshd[42]: Failed password for root from ${ip} port 4${second} ssh2`;

describe('GeoIP and ASN enrichment', () => {
  beforeAll(async () => {
    api = await startTestApi({ stages: FUSED_STAGES });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it('fires a rule on source.geo.country_iso_code for an address in that country only', async () => {
    const token = api.token();
    const rule = { name: 'Logins from GB', conditions: { pattern: 'source.geo.country_iso_code:GB' } };
    expect((await api.request('POST', '/api/v1/lead-rules', { token, body: rule })).status).toBe(201);
    await ingestLines(api, token, [failure('81.2.69.142', 1), failure('8.8.8.8', 2), failure('10.9.8.7', 3)]);
    await drained(api);
    const observations = await eventually(async () => {
      const { observations } = await get<{ observations: { node_ids: string[]; rule_id: string | null }[] }>(api, token, '/api/v1/observations');
      expect(observations.filter((o) => o.rule_id)).toHaveLength(1);
      return observations;
    });
    const { nodes } = await get<{ nodes: { id: string; value: string }[] }>(api, token, '/api/v1/nodes?type=IP&value=81.2.69.142');
    expect(observations[0]!.node_ids).toContain(nodes.find((n) => n.value === '81.2.69.142')!.id);
    const search = await get<{ total: number }>(api, token, `/api/v1/artifacts?query=${encodeURIComponent('source.as.number:15169')}`);
    expect(search.total).toBe(1);
  });

  it('shows geo and as on public IP nodes, null on private ones', async () => {
    const token = api.token();
    await ingestLines(api, token, [failure('8.8.8.8', 4), failure('10.9.8.7', 5)]);
    await drained(api);
    const node = async (value: string) =>
      eventually(async () => {
        const { nodes } = await get<{ nodes: { id: string; value: string; geo: unknown; as: unknown }[] }>(api, token, `/api/v1/nodes?type=IP&value=${value}`);
        expect(nodes).toHaveLength(1);
        return nodes[0]!;
      });
    const google = await node('8.8.8.8');
    expect(google).toMatchObject({ geo: { country_iso_code: 'US' }, as: { number: 15169, organization_name: 'Google LLC' } });
    expect((await get<{ geo: unknown }>(api, token, `/api/v1/nodes/${google.id}`)).geo).toEqual({ country_iso_code: 'US' });
    expect(await node('10.9.8.7')).toMatchObject({ geo: null, as: null });
  });
});

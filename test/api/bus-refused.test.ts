// Every route that produces to the bus answers alike when the bus refuses
// (issue 38): 503 with Retry-After, the error code `unavailable`, and no
// broker address in the answer. Ingest produces artifacts; the routes that
// change configuration raise system.config_changed, a failed login
// auth.failure (api/produce.ts). The bus refuses for real: the in-process
// bus closed (as when cairn stops), or the Kafka client disconnected (its
// sends fail as when the brokers are away). The SAML assertion consumer
// raises auth.failure through the same function as login; it needs an IdP
// and is not repeated here.
import { randomUUID } from 'node:crypto';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestApi, type ApiResponse, type TestApi } from '../helpers/api.js';

const DAY = 86_400_000;

async function selfSigned(name: string): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: `${name}.refused.test` }], { keyType: 'ec', algorithm: 'sha256', notBeforeDate: new Date(Date.now() - DAY), notAfterDate: new Date(Date.now() + 30 * DAY) });
  return { cert: pems.cert, key: pems.private };
}

describe.each(['embedded', 'distributed'] as const)('routes that produce to the bus, bus refusing, %s', (mode) => {
  let api: TestApi;
  let token: string;
  const ids = { aiConfig: '', exporter: '', toActivate: '', toDelete: '' };
  let spare: { cert: string; key: string };

  async function upload(pair: { cert: string; key: string }): Promise<ApiResponse> {
    const form = new FormData();
    for (const [name, value] of Object.entries(pair)) form.append(name, new Blob([value], { type: 'application/x-pem-file' }), `${name}.pem`);
    const response = await fetch(`${api.url}/api/v1/tls/certificates`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: JSON.parse(text) as ApiResponse['body'], text };
  }
  const created = (res: ApiResponse) => {
    expect(res.status, res.text).toBe(201);
    return (res.body.data as { id: string }).id;
  };

  beforeAll(async () => {
    const orgId = `org-${randomUUID().slice(0, 8)}`;
    api = await startTestApi({ distributed: mode === 'distributed', env: { CAIRN_ORG_ID: orgId, CAIRN_OUTBOUND_ALLOW: '127.0.0.1' } });
    token = api.token('all', orgId);
    // What the changes below need, made while the bus still takes messages.
    ids.aiConfig = created(await api.request('POST', '/api/v1/ai/configs', { token, body: { name: 'first', provider: 'openai', base_url: 'http://127.0.0.1:9/v1', model: 'm' } }));
    ids.exporter = created(await api.request('POST', '/api/v1/exporters', { token, body: { name: 'first', type: 'http', settings: { url: 'http://127.0.0.1:9/in' } } }));
    created(await upload(await selfSigned('first'))); // the first certificate is activated at once
    ids.toActivate = created(await upload(await selfSigned('activate')));
    ids.toDelete = created(await upload(await selfSigned('delete')));
    spare = await selfSigned('spare');
    await api.runtime.bus.close();
  });
  afterAll(async () => {
    await api?.close();
  });

  const ldap = { ldap: { server_url: 'ldap://127.0.0.1:1', bind_dn: 'cn=svc,dc=cairn,dc=test', bind_password: 'not-a-secret', search_base: 'dc=cairn,dc=test' } };
  const routes: [string, () => Promise<ApiResponse>][] = [
    ['POST /v1/artifacts', () => api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: [{ source: 's', raw: 'line' }] } })],
    ['POST /v1/ai/configs', () => api.request('POST', '/api/v1/ai/configs', { token, body: { name: 'second', provider: 'openai', base_url: 'http://127.0.0.1:9/v1', model: 'm' } })],
    ['PUT /v1/ai/configs/:id', () => api.request('PUT', `/api/v1/ai/configs/${ids.aiConfig}`, { token, body: { model: 'other' } })],
    ['DELETE /v1/ai/configs/:id', () => api.request('DELETE', `/api/v1/ai/configs/${ids.aiConfig}`, { token })],
    ['PUT /v1/ai/mcp/config', () => api.request('PUT', '/api/v1/ai/mcp/config', { token, body: { enabled: true } })],
    ['PUT /v1/appliance/config', () => api.request('PUT', '/api/v1/appliance/config', { token, body: { ingest_max_lag: 10 } })],
    ['POST /v1/auth/login (refused)', () => api.request('POST', '/api/v1/auth/login', { body: { email: 'nobody@refused.test', password: 'wrong' } })],
    ['POST /v1/exporters', () => api.request('POST', '/api/v1/exporters', { token, body: { name: 'second', type: 'http', settings: { url: 'http://127.0.0.1:9/in' } } })],
    ['PUT /v1/exporters/:id', () => api.request('PUT', `/api/v1/exporters/${ids.exporter}`, { token, body: { enabled: false } })],
    ['DELETE /v1/exporters/:id', () => api.request('DELETE', `/api/v1/exporters/${ids.exporter}`, { token })],
    ['PUT /v1/settings/auth', () => api.request('PUT', '/api/v1/settings/auth', { token, body: ldap })],
    ['POST /v1/admin/settings/auth/saml/generate-keypair', () => api.request('POST', '/api/v1/admin/settings/auth/saml/generate-keypair', { token })],
    ['POST /v1/tls/certificates', () => upload(spare)],
    ['PUT /v1/tls/certificates/:id/activate', () => api.request('PUT', `/api/v1/tls/certificates/${ids.toActivate}/activate`, { token })],
    ['DELETE /v1/tls/certificates/:id', () => api.request('DELETE', `/api/v1/tls/certificates/${ids.toDelete}`, { token })],
  ];

  it.each(routes)('%s answers 503 with Retry-After', async (_name, call) => {
    const res = await call();
    expect(res.status, res.text).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body).toMatchObject({ success: false, data: null, error: { code: 'unavailable', details: { retry_after_seconds: 5 } } });
    expect(res.body.message).toMatch(/^the message bus did not take .+ after 5 s$/);
    if (mode === 'distributed') expect(res.text).not.toContain(inject('kafkaBrokers'));
  });

  it('documents 503 on each of them', async () => {
    const doc = (await api.request('GET', '/api/v1/openapi.json')).body as unknown as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    for (const [name] of routes) {
      const [method, path] = name.split(' ') as [string, string];
      const operation = doc.paths[`/api${path.replace(/:(\w+)/g, '{$1}')}`]?.[method.toLowerCase()];
      expect(operation?.responses['503'], name).toBeDefined();
    }
  });
});

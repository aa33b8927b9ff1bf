// An organization's own decoders through the whole API frame: JSON and YAML
// bodies, what the save-time checks refuse and how they say it, who may
// change them, the audit log, and trials on given lines and on stored
// artifacts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually } from '../helpers/buses.js';
import { ingestLines, orgOf } from '../helpers/pipeline.js';

let api: TestApi;

const LINE = 'Jan 10 00:00:00 gw acmed[31]: denied user=erin from 192.0.2.60';
const DECODER = {
  service: 'acme',
  description: 'ACME gateway',
  programs: ['acmed'],
  defaults: { 'event.category': ['authentication'], 'event.type': ['info'] },
  decoders: [{ name: 'denied', match: '^denied user={USER} from {IP}$', fields: { 'event.action': 'acme-denied', 'event.outcome': 'failure' } }],
  tests: [{ line: LINE, expect: { 'user.name': 'erin', 'source.ip': '192.0.2.60', 'event.action': 'acme-denied' } }],
};

interface Decoder {
  id: string;
  service: string;
  spec: typeof DECODER;
  created_at: string;
  updated_at: string;
}

function post(token: string, body: unknown, path = '/api/v1/decoders') {
  return api.request('POST', path, { token, body });
}

function postYaml(token: string, yaml: string, path = '/api/v1/decoders', method = 'POST') {
  return api.request(method, path, { token, rawBody: yaml, headers: { 'content-type': 'application/yaml' } });
}

beforeAll(async () => {
  // The store stage, so that ingested artifacts are there for trials over a range.
  api = await startTestApi({ stages: ['store'] });
});
afterAll(async () => {
  await api?.close();
});

describe('decoders API', () => {
  it('creates, lists, reads (also as YAML), replaces and deletes a decoder', async () => {
    const token = api.token();
    const created = await post(token, DECODER);
    expect(created.status, created.text).toBe(201);
    const decoder = created.body.data as Decoder;
    expect(decoder).toMatchObject({ service: 'acme', spec: { ...DECODER, sources: [], fallback: false } });

    const list = await api.request('GET', '/api/v1/decoders', { token });
    expect(list.body.data).toMatchObject({ decoders: [{ id: decoder.id, service: 'acme' }], total: 1, limit: 50, offset: 0 });

    const yaml = await api.request('GET', `/api/v1/decoders/${decoder.id}?format=yaml`, { token });
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toMatch(/application\/yaml/);
    expect(parseYaml(yaml.text)).toEqual(decoder.spec);

    const changed = { ...DECODER, description: 'ACME gateway, v2' };
    const put = await api.request('PUT', `/api/v1/decoders/${decoder.id}`, { token, body: changed });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data).toMatchObject({ id: decoder.id, created_at: decoder.created_at, spec: { description: 'ACME gateway, v2' } });

    const deleted = await api.request('DELETE', `/api/v1/decoders/${decoder.id}`, { token });
    expect(deleted.status).toBe(200);
    expect(deleted.body.message).toBe('Decoder "acme" deleted');
    expect((await api.request('GET', `/api/v1/decoders/${decoder.id}`, { token })).status).toBe(404);
    expect((await api.request('GET', '/api/v1/decoders', { token })).body.data).toMatchObject({ total: 0 });
  });

  it('takes the same document as YAML', async () => {
    const token = api.token();
    const created = await postYaml(token, `# as a catalogue file holds it\n${toYaml(DECODER)}`);
    expect(created.status, created.text).toBe(201);
    expect((created.body.data as Decoder).spec.decoders[0]!.match).toBe(DECODER.decoders[0]!.match);
    const id = (created.body.data as Decoder).id;
    const put = await postYaml(token, toYaml({ ...DECODER, description: 'from YAML' }), `/api/v1/decoders/${id}`, 'PUT');
    expect(put.status, put.text).toBe(200);
    expect((put.body.data as Decoder).spec.description).toBe('from YAML');
  });

  it('records every change in the audit log, with the decoder before and after', async () => {
    const token = api.token();
    const id = ((await post(token, DECODER)).body.data as Decoder).id;
    await api.request('PUT', `/api/v1/decoders/${id}`, { token, body: { ...DECODER, description: 'changed' } });
    await api.request('DELETE', `/api/v1/decoders/${id}`, { token });
    const log = await api.request('GET', `/api/v1/audit-log?target_type=decoders&target_id=${id}`, { token });
    const entries = (log.body.data as { entries: { action: string; before: { spec?: { description: string } } | null; after: { spec?: { description: string } } | null }[] }).entries;
    expect(entries.map((e) => e.action).sort()).toEqual(['DELETE /v1/decoders/:id', 'POST /v1/decoders', 'PUT /v1/decoders/:id']);
    const put = entries.find((e) => e.action.startsWith('PUT'))!;
    expect(put.before?.spec?.description).toBe('ACME gateway');
    expect(put.after?.spec?.description).toBe('changed');
    expect(entries.find((e) => e.action.startsWith('DELETE'))!.after).toBeNull();
  });

  describe('refuses with 400 and says why', () => {
    const token = () => api.token();

    it('a body that is not YAML', async () => {
      const res = await postYaml(token(), 'service: acme\ndecoders: [ { name: x, match: "unclosed\n');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, data: null, error: { code: 'bad_request' } });
      expect(res.body.message).toMatch(/^request body is not valid YAML: /);
    });

    it('YAML bodies that are hostile: aliases multiplied, nested too deep, not UTF-8, too large (413)', async () => {
      const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]`)].join('\n');
      const cases: [string | Blob, number, RegExp][] = [
        [laughs, 400, /not valid YAML: .*[Aa]lias/],
        [`${'- '.repeat(40)}x`, 400, /nests deeper than 32 levels/],
        [new Blob([new Uint8Array([0x73, 0x3a, 0x20, 0xff, 0xfe])]), 400, /not UTF-8 text/],
        [`description: "${'x'.repeat(1024 * 1024)}"`, 413, /at most 1048576 bytes/],
      ];
      for (const [body, status, message] of cases) {
        const res = await fetch(`${api.url}/api/v1/decoders`, { method: 'POST', headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/yaml' }, body });
        const answer = (await res.json()) as { message: string; error: { code: string } };
        expect(res.status, answer.message).toBe(status);
        expect(answer.message).toMatch(message);
      }
    });

    it('an unknown key, wherever it is', async () => {
      for (const [body, where] of [
        [{ ...DECODER, programmes: ['acmed'] }, ''],
        [{ ...DECODER, decoders: [{ ...DECODER.decoders[0], feilds: {} }] }, 'decoders.0: '],
        [{ ...DECODER, tests: [{ ...DECODER.tests[0], expects: {} }] }, 'tests.0: '],
      ] as const) {
        const res = await post(token(), body);
        expect(res.status).toBe(400);
        expect(res.body.error?.code).toBe('validation_error');
        expect(res.body.message).toMatch(new RegExp(`^invalid body: ${where.replace('.', '\\.')}Unrecognized key`));
      }
    });

    it('a pattern that does not compile, naming the decoder', async () => {
      const res = await post(token(), { ...DECODER, decoders: [{ name: 'broken', match: '^denied (user' }] });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_error', details: [{ decoder: 'broken', message: expect.stringMatching(/Invalid regular expression/) }] });
      expect(res.body.message).toMatch(/^decoder refused: decoder broken: Invalid regular expression/);
    });

    it('a test line that does not give what it expects, saying what it gave', async () => {
      const res = await post(token(), { ...DECODER, tests: [...DECODER.tests, { line: LINE.replace('erin', 'frank'), expect: { 'user.name': 'erin' } }] });
      expect(res.status).toBe(400);
      expect(res.body.error?.details).toEqual([{ test: 2, message: 'test line 2: user.name is "frank", expected "erin"' }]);
    });

    it('a pattern that backtracks catastrophically, in bounded time', async () => {
      const started = Date.now();
      const res = await post(token(), { ...DECODER, decoders: [{ name: 'nested', match: '^denied user=(\\w+\\s?)+$' }] });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(res.status).toBe(400);
      expect(res.body.error?.details).toEqual([{ decoder: 'nested', message: expect.stringMatching(/^decoder nested: its pattern (did not finish in|took) \d+ ms on one line of hostile text .*the budget is 250 ms a line\. It backtracks/) }]);
    });

    it('limits past their bounds', async () => {
      const many = await post(token(), { ...DECODER, decoders: Array.from({ length: 201 }, (_, i) => ({ name: `d${i}`, match: `^denied${i}` })) });
      expect(many.status).toBe(400);
      expect(many.body.message).toMatch(/decoders: at most 200 decoders in one service/);
    });

    it('a service name the organization already uses (409)', async () => {
      const t = token();
      expect((await post(t, DECODER)).status).toBe(201);
      const again = await post(t, DECODER);
      expect(again.status).toBe(409);
      expect(again.body.error?.code).toBe('conflict');
    });
  });

  it('lets a viewer read and try decoders, and nobody without signals:manage change them', async () => {
    const admin = api.token();
    const id = ((await post(admin, DECODER)).body.data as Decoder).id;
    const viewer = api.token(BUILTIN_ROLES.viewer.permissions, orgOf(admin));
    for (const [method, path, body] of [
      ['POST', '/api/v1/decoders', DECODER],
      ['PUT', `/api/v1/decoders/${id}`, DECODER],
      ['DELETE', `/api/v1/decoders/${id}`, undefined],
    ] as const) {
      const res = await api.request(method, path, { token: viewer, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'forbidden', details: { required: 'signals:manage' } });
    }
    // A YAML body is refused before it is read, too.
    expect((await postYaml(viewer, toYaml(DECODER))).status).toBe(403);
    expect((await api.request('GET', `/api/v1/decoders/${id}`, { token: viewer })).status).toBe(200);
    expect((await post(viewer, { id, lines: [LINE] }, '/api/v1/decoders/test')).status).toBe(200);
    expect((await api.request('GET', '/api/v1/decoders', { token: api.token(['signals:write'], orgOf(admin)) })).status).toBe(403);
  });

  it('keeps each organization to its own decoders', async () => {
    const a = api.token();
    const id = ((await post(a, DECODER)).body.data as Decoder).id;
    const b = api.token();
    expect((await api.request('GET', `/api/v1/decoders/${id}`, { token: b })).status).toBe(404);
    expect((await post(b, DECODER)).status).toBe(201);
  });

  it('is described in the OpenAPI document, with YAML bodies', async () => {
    const doc = (await api.request('GET', '/api/v1/openapi.json')).body as unknown as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> }; 'x-permission'?: string }>> };
    expect(Object.keys(doc.paths['/api/v1/decoders']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/decoders/{id}']!).sort()).toEqual(['delete', 'get', 'put']);
    expect(Object.keys(doc.paths['/api/v1/decoders/test']!)).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/v1/decoders']!.post!.requestBody!.content).sort()).toEqual(['application/json', 'application/yaml']);
    expect(doc.paths['/api/v1/decoders']!.post!['x-permission']).toBe('signals:manage');
    expect(doc.paths['/api/v1/decoders/test']!.post!['x-permission']).toBe('signals:read');
  });
});

describe('POST /api/v1/decoders/test', () => {
  interface Trial {
    lines_read: number;
    lines_claimed: number;
    lines_changed: number;
    lines_recognised: number;
    fields_set: Record<string, number>;
    fields_removed: Record<string, number>;
    samples: { artifact_id: string | null; raw: string; claimed: boolean; before: { fields?: Record<string, unknown> }; after: { fields?: Record<string, unknown> } }[];
    problems: { test?: number; message: string }[];
    artifacts_in_range: number | null;
  }

  it('tries a decoder given in the body on given lines: counts, fields, samples before and after, failing tests', async () => {
    const token = api.token();
    const lines = [LINE, LINE.replace('erin', 'gus'), 'Jan 10 00:00:00 gw acmed[31]: started'];
    const res = await post(token, { decoder: { ...DECODER, tests: [{ line: LINE, expect: { 'user.name': 'nobody' } }] }, lines, samples: 2 }, '/api/v1/decoders/test');
    expect(res.status, res.text).toBe(200);
    const trial = res.body.data as Trial;
    expect(trial).toMatchObject({ lines_read: 3, lines_claimed: 2, lines_changed: 2, artifacts_in_range: null });
    expect(trial.fields_set).toMatchObject({ 'event.action': 2, 'user.name': 2, 'cairn.decoder': 2 });
    expect(trial.samples).toHaveLength(2);
    expect(trial.samples[0]).toMatchObject({ artifact_id: null, raw: LINE, claimed: true, after: { fields: { 'event.action': 'acme-denied', 'user.name': 'erin' } } });
    expect(trial.samples[0]!.before.fields?.['event.action']).not.toBe('acme-denied');
    expect(trial.samples[0]!.before.fields?.['user.name']).toBeUndefined();
    // It may be tried before its tests pass: they are reported.
    expect(trial.problems).toEqual([{ test: 1, message: 'test line 1: user.name is "erin", expected "nobody"' }]);
  });

  it('tries a stored decoder, by id, on the stored artifacts of a range, against the parse without it', async () => {
    const token = api.token();
    const started = new Date(Date.now() - 1000).toISOString();
    await ingestLines(api, token, [LINE, LINE.replace('erin', 'hal'), 'Jan 10 00:00:00 gw other[1]: unrelated line'], 'syslog');
    await eventually(async () => expect((await api.request('GET', '/api/v1/artifacts?limit=1', { token })).body.data).toMatchObject({ total: 3 }));
    const id = ((await post(token, DECODER)).body.data as Decoder).id;
    const res = await post(token, { id, start: started, samples: 5 }, '/api/v1/decoders/test');
    expect(res.status, res.text).toBe(200);
    const trial = res.body.data as Trial;
    expect(trial).toMatchObject({ lines_read: 3, lines_claimed: 2, lines_changed: 2, artifacts_in_range: 3, problems: [] });
    expect(trial.samples.filter((s) => s.claimed)).toHaveLength(2);
    expect(trial.samples.every((s) => typeof s.artifact_id === 'string')).toBe(true);
    // A query narrows the artifacts read.
    const narrowed = await post(token, { id, start: started, query: 'hal' }, '/api/v1/decoders/test');
    expect(narrowed.body.data).toMatchObject({ lines_read: 1, lines_claimed: 1 });
  });

  it('refuses what it cannot try or bounds it does not keep (400), and an unknown id (404)', async () => {
    const token = api.token();
    const cases: [unknown, RegExp][] = [
      [{ lines: [LINE] }, /give the decoder to try/],
      [{ decoder: DECODER, lines: Array.from({ length: 1001 }, () => LINE) }, /at most 1000 lines/],
      [{ decoder: DECODER, limit: 10_001 }, /limit must be at most 10000/],
      [{ decoder: DECODER, samples: 21 }, /samples must be at most 20/],
      [{ decoder: DECODER, lines: [LINE], start: new Date().toISOString() }, /give lines, or a range of stored artifacts/],
      [{ decoder: { ...DECODER, decoders: [{ name: 'nested', match: '(a+)+$' }] }, lines: [LINE] }, /decoder nested: its pattern/],
      [{ decoder: DECODER, query: 'source.ip:(' }, /invalid query/],
    ];
    for (const [body, message] of cases) {
      const res = await post(token, body, '/api/v1/decoders/test');
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await post(token, { id: '00000000-0000-4000-8000-000000000000', lines: [LINE] }, '/api/v1/decoders/test')).status).toBe(404);
  });
});

// TLS certificates and the HTTPS listener (issue 14, point 4): uploads that
// are checked before they are stored (key match, PEM, validity, chain order),
// the key sealed at rest, HTTPS served with the active certificate and
// switched without a restart (by the activating process at once, by the
// others through polling), system.cert_expiring once a day, the 409 on
// deleting the served certificate, and the permission rows of SPEC 4.11.
import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomUUID, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { activateCertificate, getCertificate } from '../../clickhouse/tables/tls-certificates.js';
import { PERMISSIONS } from '../../identity/permissions.js';
import { SecretBox } from '../../lib/secret-box.js';
import { checkCertificateExpiry, startHttpsListener, type HttpsListener } from '../../ops/tls/index.js';
import type { DeliveredMessage } from '../../pipeline/bus/types.js';
import { systemEvents } from '../../topics/index.js';
import { startTestApi, TEST_MASTER_KEY, type ApiResponse, type TestApi } from '../helpers/api.js';
import { eventually, testLogger, uniqueName } from '../helpers/buses.js';
import { freePort } from '../services/process.js';

const DAY = 86_400_000;
const POLL_MS = 200;

interface Pair {
  cert: string;
  key: string;
  host: string;
}

interface CertificateData {
  id: string;
  subject: string;
  sans: string[];
  issuer: string;
  serial: string;
  fingerprint_sha256: string;
  not_before: string;
  not_after: string;
  days_to_expiry: number;
  chain_length: number;
  active: boolean;
  created_by: string;
}

interface StatusData {
  https_enabled: boolean;
  port: number | null;
  active_certificate: { id: string; subject: string; not_after: string; days_to_expiry: number } | null;
  served_certificate_id: string | null;
  min_tls_version: string;
}

/** A self-signed EC pair for `<name>.tls.test` (and 127.0.0.1), valid from `from` until `until`. */
async function makePair(name: string, from = new Date(Date.now() - DAY), until = new Date(Date.now() + 365 * DAY)): Promise<Pair> {
  const host = `${name}.tls.test`;
  const pems = await generate([{ name: 'commonName', value: host }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: from,
    notAfterDate: until,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: host }, { type: 7, ip: '127.0.0.1' }] }],
  });
  return { cert: pems.cert, key: pems.private, host };
}

/** A root CA, an intermediate it signs and a leaf the intermediate signs, made with the openssl CLI. */
function makeChain(dir: string): { root: string; intermediate: string; leaf: string; key: string; host: string } {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const file = (name: string) => path.join(dir, name);
  const host = 'chain.tls.test';
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'root.key', '-out', 'root.pem', '-days', '30', '-subj', '/CN=cairn test root CA', '-addext', 'basicConstraints=critical,CA:true', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  fs.writeFileSync(file('ca.ext'), 'basicConstraints=critical,CA:true,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n');
  run('req', ...ec, '-keyout', 'inter.key', '-out', 'inter.csr', '-subj', '/CN=cairn test intermediate CA');
  run('x509', '-req', '-in', 'inter.csr', '-CA', 'root.pem', '-CAkey', 'root.key', '-CAcreateserial', '-out', 'inter.pem', '-days', '30', '-extfile', 'ca.ext');
  fs.writeFileSync(file('leaf.ext'), `basicConstraints=CA:false\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:${host},IP:127.0.0.1\n`);
  run('req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', `/CN=${host}/O=cairn tests`);
  run('x509', '-req', '-in', 'leaf.csr', '-CA', 'inter.pem', '-CAkey', 'inter.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '20', '-extfile', 'leaf.ext');
  const read = (name: string) => fs.readFileSync(file(name), 'utf8');
  return { root: read('root.pem'), intermediate: read('inter.pem'), leaf: read('leaf.pem'), key: read('leaf.key'), host };
}

describe('TLS certificates and the HTTPS listener', () => {
  let api: TestApi;
  let admin: string;
  let listener: HttpsListener;
  let tlsPort: number;
  let workDir: string;
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const box = new SecretBox(Buffer.from(TEST_MASTER_KEY, 'hex'));
  let first: Pair;
  let firstId: string;

  beforeAll(async () => {
    // The listener serves the deployment organization's certificate (CAIRN_ORG_ID).
    api = await startTestApi({ env: { CAIRN_ORG_ID: orgId } });
    admin = api.token('all', orgId);
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-tls-'));
    tlsPort = await freePort();
    // As `cairn start` does (cli/commands/serve.ts), with the port set and a short poll.
    const config = { ...api.runtime.config, operations: { ...api.runtime.config.operations, tlsPort } };
    listener = await startHttpsListener({ app: createApp(api.runtime), store: api.runtime.store, box, config, logger: testLogger, pollMs: POLL_MS });
  });
  afterAll(async () => {
    await listener?.close();
    await api?.close();
  });

  async function upload(parts: Record<string, string>, token = admin): Promise<ApiResponse> {
    const form = new FormData();
    for (const [name, value] of Object.entries(parts)) {
      if (name === 'activate') form.append(name, value);
      else form.append(name, new Blob([value], { type: 'application/x-pem-file' }), `${name}.pem`);
    }
    const response = await fetch(`${api.url}/api/v1/tls/certificates`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: JSON.parse(text) as ApiResponse['body'], text };
  }

  async function status(): Promise<StatusData> {
    const res = await api.request('GET', '/api/v1/tls/status', { token: admin });
    expect(res.status, res.text).toBe(200);
    return res.body.data as StatusData;
  }

  /** An HTTPS request to the listener; `ca` given: verified against it for `servername`, otherwise not verified. */
  function httpsGet(requestPath: string, options: { ca?: string | string[]; servername?: string; token?: string } = {}) {
    return new Promise<{ status: number; fingerprint: string; body: string }>((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: tlsPort,
          path: requestPath,
          agent: false,
          ca: options.ca,
          servername: options.servername,
          rejectUnauthorized: options.ca !== undefined,
          headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
        },
        (res) => {
          const fingerprint = (res.socket as tls.TLSSocket).getPeerCertificate().fingerprint256;
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, fingerprint, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  /** The protocol a TLS handshake with the listener settles on, for a client limited to [min, max]. */
  function handshake(max: tls.SecureVersion, min: tls.SecureVersion = max) {
    return new Promise<string | null>((resolve, reject) => {
      // SECLEVEL=0 lets this client offer TLS 1.0/1.1 at all (OpenSSL 3 refuses them by default), so the refusal below is the server's.
      const socket = tls.connect({ host: '127.0.0.1', port: tlsPort, servername: first.host, ca: first.cert, minVersion: min, maxVersion: max, ciphers: 'DEFAULT:@SECLEVEL=0' }, () => {
        resolve(socket.getProtocol());
        socket.end();
      });
      socket.on('error', reject);
    });
  }

  const fingerprintOf = (pem: string) => new X509Certificate(pem).fingerprint256;

  it('waits for a certificate, then serves HTTPS with the uploaded one, verifiable against it, TLS 1.2 and up only', async () => {
    expect(listener.port()).toBeNull();
    expect(await status()).toMatchObject({ https_enabled: false, port: null, active_certificate: null, served_certificate_id: null, min_tls_version: 'TLSv1.2' });

    first = await makePair('first');
    const res = await upload({ cert: first.cert, key: first.key });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data as CertificateData;
    firstId = data.id;
    const x509 = new X509Certificate(first.cert);
    expect(data).toMatchObject({
      subject: `CN=${first.host}`,
      issuer: `CN=${first.host}`,
      sans: [`DNS:${first.host}`, 'IP Address:127.0.0.1'],
      serial: x509.serialNumber,
      fingerprint_sha256: x509.fingerprint256,
      not_after: new Date(x509.validTo).toISOString(),
      chain_length: 1,
      active: true, // the first certificate is activated without being asked
      created_by: 'tester',
    });
    expect(data.days_to_expiry).toBeGreaterThanOrEqual(363);
    expect(res.text).not.toMatch(/PRIVATE KEY|key_sealed|chain_pem/);

    // The activating process refreshes at once: no waiting for the poll.
    expect(listener.port()).toBe(tlsPort);
    const served = await httpsGet('/healthz', { ca: first.cert, servername: first.host });
    expect(served).toMatchObject({ status: 200, fingerprint: x509.fingerprint256 });
    // The same app: the API answers over HTTPS too.
    const overTls = await httpsGet('/api/v1/tls/status', { ca: first.cert, servername: first.host, token: admin });
    expect(JSON.parse(overTls.body)).toMatchObject({ success: true, data: { https_enabled: true, port: tlsPort } });
    expect(await status()).toMatchObject({
      https_enabled: true,
      port: tlsPort,
      active_certificate: { id: firstId, subject: `CN=${first.host}`, not_after: data.not_after },
      served_certificate_id: firstId,
    });

    await expect(httpsGet('/healthz', { ca: first.cert, servername: 'other.tls.test' })).rejects.toThrow(/altnames|does not match/i);
    expect(await handshake('TLSv1.2')).toBe('TLSv1.2');
    expect(await handshake('TLSv1.3')).toBe('TLSv1.3');
    // A client willing to speak TLS 1.0/1.1 only: the server refuses with a protocol_version alert.
    await expect(handshake('TLSv1.1', 'TLSv1')).rejects.toThrow(/alert protocol version/);
  });

  it('refuses, with 400 and a message that says why, a key that does not match, non-PEM files, and expired or not yet valid certificates', async () => {
    const other = await makePair('other');
    const cases: [string, Record<string, string>, RegExp][] = [
      ['mismatched key', { cert: other.cert, key: first.key }, /private key does not match the certificate/],
      ['non-PEM cert', { cert: 'this is not a certificate', key: other.key }, /cert part is not a PEM certificate/],
      ['DER bytes as cert', { cert: Buffer.from(new X509Certificate(other.cert).raw).toString('latin1'), key: other.key }, /not a PEM certificate.*openssl x509 -inform der/],
      ['broken PEM block', { cert: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', key: other.key }, /not a valid X\.509 certificate/],
      ['non-PEM key', { cert: other.cert, key: 'not a key' }, /key part is not a PEM private key/],
      ['key as cert', { cert: other.key, key: other.key }, /cert part holds a private key/],
      ['missing key', { cert: other.cert }, /missing part\(s\): key/],
      ['unknown part', { cert: other.cert, key: other.key, password: 'x' }, /unknown part "password"/],
      ['bad activate', { cert: other.cert, key: other.key, activate: 'maybe' }, /activate must be true or false/],
    ];
    const expired = await makePair('expired', new Date(Date.now() - 30 * DAY), new Date(Date.now() - DAY));
    cases.push(['expired', { cert: expired.cert, key: expired.key }, /the certificate expired on \d{4}-/]);
    const future = await makePair('future', new Date(Date.now() + DAY), new Date(Date.now() + 30 * DAY));
    cases.push(['not yet valid', { cert: future.cert, key: future.key }, /not valid yet: its validity starts \d{4}-/]);
    const encryptedKey = createPrivateKey(other.key).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' }).toString();
    cases.push(['encrypted key', { cert: other.cert, key: encryptedKey }, /encrypted with a passphrase/]);

    for (const [name, parts, message] of cases) {
      const res = await upload(parts);
      expect(res.status, `${name}: ${res.text}`).toBe(400);
      expect(res.body.message, name).toMatch(message);
      expect(res.text, name).not.toMatch(/\n\s+at /);
    }
    const list = await api.request('GET', '/api/v1/tls/certificates', { token: admin });
    expect((list.body.data as { total: number }).total).toBe(1);
  });

  it('answers 415 to a body that is not multipart, 413 to an oversized part, and 409 to a certificate stored already', async () => {
    const json = await api.request('POST', '/api/v1/tls/certificates', { token: admin, body: { cert: first.cert, key: first.key } });
    expect(json.status).toBe(415);
    expect(json.body.message).toMatch(/multipart\/form-data/);
    const noBoundary = await api.request('POST', '/api/v1/tls/certificates', { token: admin, rawBody: 'x', headers: { 'content-type': 'multipart/form-data' } });
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body.message).toMatch(/multipart body cannot be read/);
    const junk = await api.request('POST', '/api/v1/tls/certificates', { token: admin, rawBody: '--b\r\nnot a part header', headers: { 'content-type': 'multipart/form-data; boundary=b' } });
    expect(junk.status).toBe(400);
    const big = await upload({ cert: first.cert + 'x'.repeat(300 * 1024), key: first.key });
    expect(big.status).toBe(413);
    expect(big.body.message).toMatch(/larger than 256 KiB/);
    const again = await upload({ cert: first.cert, key: first.key });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(firstId);
  });

  it('accepts a chain (leaf, then its intermediate) and serves it whole: a client that trusts only the root verifies it', async () => {
    const chain = makeChain(workDir);
    const outOfOrder = await upload({ cert: chain.intermediate + chain.leaf, key: chain.key });
    expect(outOfOrder.status).toBe(400);
    expect(outOfOrder.body.message).toMatch(/not issued by certificate 2.*leaf first/);

    const res = await upload({ cert: chain.leaf + chain.intermediate, key: chain.key, activate: 'false' });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data as CertificateData;
    expect(data).toMatchObject({ chain_length: 2, active: false, subject: `CN=${chain.host}, O=cairn tests`, issuer: 'CN=cairn test intermediate CA' });
    expect(res.body.message).toContain(`/api/v1/tls/certificates/${data.id}/activate`);
    // Not active: the listener still presents the first certificate.
    expect((await httpsGet('/healthz')).fingerprint).toBe(fingerprintOf(first.cert));

    const activated = await api.request('PUT', `/api/v1/tls/certificates/${data.id}/activate`, { token: admin });
    expect(activated.status, activated.text).toBe(200);
    expect(activated.body.message).toContain(`replaces CN=${first.host}`);
    const served = await httpsGet('/healthz', { ca: chain.root, servername: chain.host });
    expect(served).toMatchObject({ status: 200, fingerprint: fingerprintOf(chain.leaf) });

    // Back to the first, for the tests that follow.
    expect((await api.request('PUT', `/api/v1/tls/certificates/${firstId}/activate`, { token: admin })).status).toBe(200);
  });

  it('switches what the listener presents without a restart: at once through the API, by polling when another process activates', async () => {
    const second = await makePair('second');
    const res = await upload({ cert: second.cert, key: second.key, activate: 'false' });
    expect(res.status, res.text).toBe(201);
    const secondId = (res.body.data as CertificateData).id;
    const port = listener.port();
    expect((await httpsGet('/healthz', { ca: first.cert, servername: first.host })).fingerprint).toBe(fingerprintOf(first.cert));

    const put = await api.request('PUT', `/api/v1/tls/certificates/${secondId}/activate`, { token: admin });
    expect(put.status, put.text).toBe(200);
    expect((put.body.data as CertificateData).active).toBe(true);
    expect(await httpsGet('/healthz', { ca: second.cert, servername: second.host })).toMatchObject({ status: 200, fingerprint: fingerprintOf(second.cert) });
    expect(listener.port()).toBe(port);
    const listed = (await api.request('GET', '/api/v1/tls/certificates', { token: admin })).body.data as { certificates: CertificateData[] };
    expect(listed.certificates.filter((c) => c.active).map((c) => c.id)).toEqual([secondId]);
    const again = await api.request('PUT', `/api/v1/tls/certificates/${secondId}/activate`, { token: admin });
    expect(again.body.message).toMatch(/already active/);

    // Another API process activates the first one: it writes the table, and this listener finds it at its next poll.
    const stored = (await getCertificate(api.runtime.store, orgId, firstId))!;
    await activateCertificate(api.runtime.store, stored);
    await eventually(async () => expect((await httpsGet('/healthz', { ca: first.cert, servername: first.host })).fingerprint).toBe(fingerprintOf(first.cert)), 5000, POLL_MS);
    expect((await status()).served_certificate_id).toBe(firstId);
    expect(listener.port()).toBe(port);
  });

  it('raises system.cert_expiring for a certificate expiring in 10 days, once per certificate per day', async () => {
    const soon = await makePair('soon', new Date(Date.now() - DAY), new Date(Date.now() + 10 * DAY));
    const res = await upload({ cert: soon.cert, key: soon.key, activate: 'false' });
    expect(res.status, res.text).toBe(201);
    const soonId = (res.body.data as CertificateData).id;
    expect((res.body.data as CertificateData).days_to_expiry).toBe(9); // 10 days less the moments since it was made, rounded down

    const events: DeliveredMessage[] = [];
    const sub = await api.runtime.bus.subscribe({ group: uniqueName('cert-events'), topic: systemEvents.name, maxBatchSize: 100, maxWaitMs: 10, handler: async (b) => void events.push(...b) });
    try {
      const deps = { store: api.runtime.store, bus: api.runtime.bus, state: api.runtime.state, config: api.runtime.config, logger: testLogger };
      // Two are within the 30 days of CAIRN_CERT_EXPIRY_WARN_DAYS: this one and the chain's leaf (20 days).
      expect(await checkCertificateExpiry(deps)).toBe(2);
      // A second look the same day (this process or another) raises nothing.
      expect(await checkCertificateExpiry(deps)).toBe(0);
      const expiring = () =>
        events
          .map((m) => JSON.parse(m.value.toString()) as { type: string; org_id: string; severity: string; summary: string; details: Record<string, unknown> })
          .filter((e) => e.type === 'system.cert_expiring' && e.details.certificate_id === soonId);
      await eventually(() => expect(expiring()).toHaveLength(1));
      expect(expiring()[0]).toMatchObject({
        org_id: orgId,
        severity: 'warning',
        details: { certificate_id: soonId, subject: `CN=${soon.host}`, days_to_expiry: 9, active: false },
      });
      expect(expiring()[0]!.summary).toMatch(/expires in 9 day\(s\)/);
      // The next day counts again.
      expect(await checkCertificateExpiry(deps, new Date(Date.now() + DAY))).toBe(2);
    } finally {
      await sub.stop();
    }
  });

  it('keeps the private key sealed in ClickHouse, and out of answers and the audit log', async () => {
    const result = await api.runtime.store.query({ query: 'SELECT * FROM tls_certificates FINAL WHERE org_id = {org:String}', query_params: { org: orgId }, format: 'JSONEachRow' });
    const rows = await result.json<{ id: string; key_sealed: string; chain_pem: string }>();
    expect(rows.length).toBeGreaterThanOrEqual(4);
    const firstRow = rows.find((r) => r.id === firstId)!;
    const keyBody = createPrivateKey(first.key).export({ type: 'pkcs8', format: 'der' }).toString('base64');
    const everything = JSON.stringify(rows);
    expect(everything).not.toContain('PRIVATE KEY');
    expect(everything).not.toContain(keyBody.slice(0, 40));
    expect(firstRow.key_sealed).toMatch(/^v1:/);
    expect(createPrivateKey(box.open(firstRow.key_sealed)).export({ type: 'pkcs8', format: 'der' }).toString('base64')).toBe(keyBody);
    expect(firstRow.chain_pem).toBe(new X509Certificate(first.cert).toString());

    const audit = await api.request('GET', '/api/v1/audit-log?target_type=tls/certificates&limit=100', { token: admin });
    expect(audit.status, audit.text).toBe(200);
    const entries = (audit.body.data as { entries: { action: string; target_id: string; after: unknown }[] }).entries;
    expect(entries.find((e) => e.target_id === firstId && e.action === 'POST /v1/tls/certificates')).toBeDefined();
    expect(audit.text).not.toMatch(/PRIVATE KEY|key_sealed/);
  });

  it('refuses with 409 to delete the active certificate while HTTPS is served, deletes the others, 404 for an unknown one', async () => {
    const refused = await api.request('DELETE', `/api/v1/tls/certificates/${firstId}`, { token: admin });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/activate another certificate first/);

    const spare = await makePair('spare');
    const spareId = ((await upload({ cert: spare.cert, key: spare.key, activate: 'false' })).body.data as CertificateData).id;
    const deleted = await api.request('DELETE', `/api/v1/tls/certificates/${spareId}`, { token: admin });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.data).toBeNull();
    expect(deleted.body.message).toContain(spareId);
    expect((await api.request('DELETE', `/api/v1/tls/certificates/${spareId}`, { token: admin })).status).toBe(404);
    expect((await api.request('PUT', `/api/v1/tls/certificates/${spareId}/activate`, { token: admin })).status).toBe(404);
    expect((await api.request('DELETE', '/api/v1/tls/certificates/not-a-uuid', { token: admin })).status).toBe(400);
    const list = (await api.request('GET', '/api/v1/tls/certificates?limit=2', { token: admin })).body.data as { certificates: CertificateData[]; total: number; limit: number };
    expect(list.limit).toBe(2);
    expect(list.certificates).toHaveLength(2);
    expect(list.total).toBeGreaterThanOrEqual(4);
    expect(list.certificates.some((c) => c.id === spareId)).toBe(false);
  });

  it('answers the TLS rows of SPEC 4.11 with 401 without a token, 403 without the permission, and per contract with it', async () => {
    const spare = await makePair('rows');
    const rowsOrg = `org-${randomUUID().slice(0, 8)}`;
    const without = (permission: string) => api.token(PERMISSIONS.filter((p) => p !== permission), rowsOrg);
    const only = (permission: string) => api.token([permission], rowsOrg);

    const rows: { method: string; path: string; permission: string; call: (token?: string) => Promise<ApiResponse>; expected: number }[] = [
      { method: 'GET', path: '/v1/tls/certificates', permission: 'settings:read', call: (t) => api.request('GET', '/api/v1/tls/certificates', { token: t }), expected: 200 },
      { method: 'POST', path: '/v1/tls/certificates', permission: 'settings:manage', call: (t) => (t ? upload({ cert: spare.cert, key: spare.key }, t) : api.request('POST', '/api/v1/tls/certificates')), expected: 201 },
      { method: 'GET', path: '/v1/tls/status', permission: 'settings:read', call: (t) => api.request('GET', '/api/v1/tls/status', { token: t }), expected: 200 },
    ];
    for (const row of rows) {
      expect((await row.call()).status, `${row.method} ${row.path} without a token`).toBe(401);
      const refused = await row.call(without(row.permission));
      expect(refused.status, `${row.method} ${row.path} without ${row.permission}`).toBe(403);
      expect(refused.body.message).toContain(row.permission);
      const answered = await row.call(only(row.permission));
      expect(answered.status, `${row.method} ${row.path} with ${row.permission}: ${answered.text}`).toBe(row.expected);
    }

    // The uploaded certificate of that organization (active: its first) is not the served one: it may be deleted.
    const list = (await api.request('GET', '/api/v1/tls/certificates', { token: only('settings:read') })).body.data as { certificates: CertificateData[] };
    const id = list.certificates[0]!.id;
    for (const [method, path] of [
      ['PUT', `/api/v1/tls/certificates/${id}/activate`],
      ['DELETE', `/api/v1/tls/certificates/${id}`],
    ] as const) {
      expect((await api.request(method, path)).status, `${method} without a token`).toBe(401);
      expect((await api.request(method, path, { token: without('settings:manage') })).status, `${method} without settings:manage`).toBe(403);
      expect((await api.request(method, path, { token: only('settings:manage') })).status, `${method} with settings:manage`).toBe(200);
    }
  });

  it('says HTTPS is off once the listener closes, and then lets the active certificate be deleted', async () => {
    await listener.close();
    expect(listener.port()).toBeNull();
    const off = await status();
    expect(off).toMatchObject({ https_enabled: false, port: null, served_certificate_id: null, active_certificate: { id: firstId } });
    await expect(httpsGet('/healthz')).rejects.toThrow();
    const deleted = await api.request('DELETE', `/api/v1/tls/certificates/${firstId}`, { token: admin });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await status()).active_certificate).toBeNull();
  });
});

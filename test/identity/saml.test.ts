// cairn as a SAML service provider against a real samlify IdP (its own keys,
// served on 127.0.0.1): the SP-initiated login end to end, each way a
// response must be refused, the four-check settings test, key pair
// generation and metadata fetching through the guarded outbound client.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import samlify from 'samlify';
import type { ServiceProviderInstance } from 'samlify';
import { generate as selfsigned } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consumeAssertion,
  fetchIdpMetadata,
  generateSpKeypair,
  loginRedirect,
  samlChecks,
  spMetadata,
  type SamlConfig,
} from '../../identity/saml.js';
import { OutboundClient, OutboundError, outboundPolicy } from '../../lib/outbound/client.js';
import { LocalState } from '../../pipeline/state/local-state.js';
import type { HotState } from '../../pipeline/state/types.js';
import { alterResponse, CLAIMS, startTestIdp, type TestIdp, type TestUser } from '../helpers/saml-idp.js';

const SP_ENTITY_ID = 'https://cairn.example/api/v1/auth/saml/metadata';
const ACS_URL = 'https://cairn.example/api/v1/auth/saml/acs';
const ALICE: TestUser = { nameId: 'alice@example.com', email: 'alice@example.com', firstName: 'Alice', lastName: 'Liddell', groups: ['soc-analysts', 'admins'] };

let dir: string;
let state: LocalState;
let idp: TestIdp;
let spKeys: { private_key: string; certificate: string };
let config: SamlConfig;
let sp: ServiceProviderInstance; // cairn's SP as the IdP knows it (from cairn's SP metadata)
const client = new OutboundClient(outboundPolicy(['127.0.0.1']));

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-saml-'));
  state = await LocalState.open(path.join(dir, 'state.journal'));
  [idp, spKeys] = await Promise.all([startTestIdp(), generateSpKeypair()]);
  config = {
    idpEntityId: idp.entityId,
    ssoUrl: idp.ssoUrl,
    sloUrl: idp.sloUrl,
    idpCertificate: idp.certificate,
    spEntityId: SP_ENTITY_ID,
    acsUrl: ACS_URL,
    spPrivateKey: spKeys.private_key,
    spCertificate: spKeys.certificate,
    attributeMapping: { email: CLAIMS.email, first_name: CLAIMS.first_name, last_name: CLAIMS.last_name, groups: CLAIMS.groups },
    clockSkewMs: 120_000,
  };
  sp = idp.trust(spMetadata(config));
});

afterAll(async () => {
  await state?.close();
  await idp?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** cairn starts a login; the IdP reads (and verifies) the AuthnRequest; returns its id. */
async function startLogin(relayState?: string): Promise<string> {
  const { url, requestId } = await loginRedirect(config, state, relayState);
  const request = await idp.readRequest(sp, url);
  expect(request.id).toBe(requestId);
  return requestId;
}

function refusal(result: Awaited<ReturnType<typeof consumeAssertion>>): string {
  expect(result.ok).toBe(false);
  return result.ok ? '' : result.reason;
}

describe('SP metadata', () => {
  it('names the entity id and the ACS, and publishes the signing certificate', () => {
    const meta = samlify.ServiceProvider({ metadata: spMetadata(config) }).entityMeta;
    expect(meta.getEntityID()).toBe(SP_ENTITY_ID);
    expect(meta.getAssertionConsumerService('post')).toBe(ACS_URL);
    expect(meta.isAuthnRequestSigned()).toBe(true);
    expect(meta.isWantAssertionsSigned()).toBe(true);
    const published = meta.getX509Certificate('signing') as string;
    expect(new X509Certificate(Buffer.from(published, 'base64')).fingerprint256).toBe(new X509Certificate(spKeys.certificate).fingerprint256);
  });
});

describe('SP-initiated login', () => {
  it('redirects with a signed AuthnRequest and maps the signed response to an identity', async () => {
    const { url, requestId } = await loginRedirect(config, state, '/incidents/42');
    expect(url.startsWith(`${idp.ssoUrl}?SAMLRequest=`)).toBe(true);
    const params = new URL(url).searchParams;
    expect(params.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    expect(params.get('Signature')).toBeTruthy();

    const request = await idp.readRequest(sp, url); // verifies the redirect signature with the SP certificate
    expect(request).toEqual({ id: requestId, issuer: SP_ENTITY_ID, acsUrl: ACS_URL, relayState: '/incidents/42' });

    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: request.id, user: ALICE });
    const result = await consumeAssertion(config, state, { SAMLResponse, RelayState: '/incidents/42' });
    expect(result).toEqual({
      ok: true,
      identity: { nameId: 'alice@example.com', email: 'alice@example.com', firstName: 'Alice', lastName: 'Liddell', groups: ['soc-analysts', 'admins'] },
      relayState: '/incidents/42',
    });
  });

  it('a request signed with a tampered redirect URL is refused by the IdP (the SP really signs)', async () => {
    const { url } = await loginRedirect(config, state, '/a');
    await expect(idp.readRequest(sp, url.replace('RelayState=%2Fa', 'RelayState=%2Fb'))).rejects.toThrow(/SIGNATURE/);
  });

  it('works without an SP key pair: the AuthnRequest goes unsigned', async () => {
    const plainIdp = await startTestIdp({ wantAuthnRequestsSigned: false });
    try {
      const plain: SamlConfig = { ...config, idpEntityId: plainIdp.entityId, ssoUrl: plainIdp.ssoUrl, idpCertificate: plainIdp.certificate, spPrivateKey: undefined, spCertificate: undefined };
      const plainSp = plainIdp.trust(spMetadata(plain));
      expect(plainSp.entityMeta.isAuthnRequestSigned()).toBe(false);
      const { url, requestId } = await loginRedirect(plain, state);
      expect(new URL(url).searchParams.has('Signature')).toBe(false);
      const request = await plainIdp.readRequest(plainSp, url);
      const SAMLResponse = await plainIdp.loginResponse(plainSp, { inResponseTo: request.id, user: ALICE });
      const result = await consumeAssertion(plain, state, { SAMLResponse });
      expect(result.ok && result.identity.email).toBe('alice@example.com');
      expect(result.ok && result.relayState).toBeUndefined();
      expect(request.id).toBe(requestId);
    } finally {
      await plainIdp.close();
    }
  });

  it('accepts a response signed as a whole (message signature, assertion not signed on its own)', async () => {
    // The IdP signs what the SP metadata asks for; this SP asks for no assertion signature.
    const messageSigning = idp.trust(spMetadata(config).replace('WantAssertionsSigned="true"', 'WantAssertionsSigned="false"'));
    const id = await startLogin();
    const SAMLResponse = await idp.loginResponse(messageSigning, { inResponseTo: id, user: ALICE });
    const xml = Buffer.from(SAMLResponse, 'base64').toString();
    expect(xml).toMatch(/<\/saml:Issuer><ds:Signature/); // right after the Response's Issuer...
    expect(xml.match(/<ds:Signature /g)).toHaveLength(1); // ...and nowhere else
    const result = await consumeAssertion(config, state, { SAMLResponse });
    expect(result.ok && result.identity.groups).toEqual(['soc-analysts', 'admins']);
  });

  it('accepts an assertion that ran out within the clock skew', async () => {
    const id = await startLogin();
    // Valid for 5 minutes from 6 minutes ago: expired 1 minute ago, skew is 2.
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE, issuedAt: new Date(Date.now() - 6 * 60_000) });
    const result = await consumeAssertion(config, state, { SAMLResponse });
    expect(result.ok).toBe(true);
  });

  it('refuses a RelayState swapped on the way back', async () => {
    const id = await startLogin('/incidents/42');
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE });
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse, RelayState: 'https://evil.example/' }))).toMatch(/RelayState does not match/);
  });

  it('refuses a RelayState longer than SAML allows', async () => {
    await expect(loginRedirect(config, state, '/x'.repeat(41))).rejects.toThrow(/80 bytes/);
  });
});

describe('refused responses', () => {
  it('an assertion altered after signing (and the genuine one still works after)', async () => {
    const id = await startLogin();
    const genuine = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE });
    const altered = alterResponse(genuine, (xml) => xml.replaceAll('alice@example.com', 'mallory@example.com'));
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse: altered }))).toBe(
      'the signature does not verify against the IdP certificate (altered or signed by another key)',
    );
    const result = await consumeAssertion(config, state, { SAMLResponse: genuine });
    expect(result.ok && result.identity.email).toBe('alice@example.com');
  });

  it('a response addressed to another ACS (Destination is outside the signed assertion, still checked)', async () => {
    const id = await startLogin();
    const genuine = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE });
    const redirected = alterResponse(genuine, (xml) => xml.replace(`Destination="${ACS_URL}"`, 'Destination="https://other-sp.example/acs"'));
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse: redirected }))).toBe('the response is addressed to another service (Destination)');
  });

  it('a response in which the IdP reports a failure', async () => {
    const id = await startLogin();
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE, statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Responder' });
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse }))).toBe('the IdP reported a failure (Responder)');
  });

  it('an unsigned response', async () => {
    const id = await startLogin();
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE, signed: false });
    expect(Buffer.from(SAMLResponse, 'base64').toString()).toContain('alice@example.com'); // otherwise well formed
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse }))).toBe('the response is not signed');
  });

  it('a response signed by another key for the same IdP entity id', async () => {
    const impostor = await startTestIdp({ entityId: idp.entityId });
    try {
      const id = await startLogin();
      const SAMLResponse = await impostor.loginResponse(impostor.trust(spMetadata(config)), { inResponseTo: id, user: ALICE });
      expect(refusal(await consumeAssertion(config, state, { SAMLResponse }))).toMatch(/certificate other than the configured IdP certificate/);
    } finally {
      await impostor.close();
    }
  });

  it('an assertion for another audience', async () => {
    const id = await startLogin();
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE, audience: 'https://other-sp.example/metadata' });
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse }))).toBe('the assertion is for another audience');
  });

  it('an expired assertion', async () => {
    const id = await startLogin();
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE, issuedAt: new Date(Date.now() - 60 * 60_000) });
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse }))).toMatch(/expired/);
  });

  it('an assertion not yet valid', async () => {
    const id = await startLogin();
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE, issuedAt: new Date(Date.now() + 10 * 60_000) });
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse }))).toMatch(/not yet valid/);
  });

  it('a subject confirmation for another recipient', async () => {
    const id = await startLogin();
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE, recipient: 'https://other-sp.example/acs' });
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse }))).toBe('the subject confirmation is for another recipient');
  });

  it('an assertion from an issuer other than the configured IdP', async () => {
    const id = await startLogin();
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE });
    const other = { ...config, idpEntityId: 'https://other-idp.example/' }; // same certificate, other entity id
    expect(refusal(await consumeAssertion(other, state, { SAMLResponse }))).toMatch(/issued by another IdP/);
  });

  it('the same response a second time (replay)', async () => {
    const id = await startLogin();
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE });
    expect((await consumeAssertion(config, state, { SAMLResponse })).ok).toBe(true);
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse }))).toBe('the assertion was already used (replay)');
  });

  it('a second assertion for a request already answered', async () => {
    const id = await startLogin();
    const first = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE });
    const second = await idp.loginResponse(sp, { inResponseTo: id, user: ALICE });
    expect((await consumeAssertion(config, state, { SAMLResponse: first })).ok).toBe(true);
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse: second }))).toMatch(/answers no login request/);
  });

  it('two assertions for one request arriving together: exactly one logs in', async () => {
    const id = await startLogin();
    const responses = await Promise.all([1, 2, 3].map(() => idp.loginResponse(sp, { inResponseTo: id, user: ALICE })));
    // The real state with a slow delete (a distant Redis), so every consumer reads the request before it is gone.
    const slowDelete: HotState = new Proxy(state, {
      get(target, property) {
        if (property === 'delete') return async (key: string) => (await new Promise((r) => setTimeout(r, 1500)), target.delete(key));
        const value = Reflect.get(target, property) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const results = await Promise.all(responses.map((SAMLResponse) => consumeAssertion(config, slowDelete, { SAMLResponse })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    for (const r of results.filter((r) => !r.ok)) expect(refusal(r)).toMatch(/already answered|answers no login request/);
  });

  it('an unsolicited response (no InResponseTo)', async () => {
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: null, user: ALICE });
    expect(Buffer.from(SAMLResponse, 'base64').toString()).not.toContain('InResponseTo');
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse }))).toMatch(/^unsolicited response/);
  });

  it('a response to a request cairn never issued', async () => {
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: '_0f6c1b0e-not-issued-by-cairn', user: ALICE });
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse }))).toMatch(/answers no login request cairn has open/);
  });

  it('an assertion without the email attribute', async () => {
    const id = await startLogin();
    const { email: _omitted, ...noEmail } = ALICE;
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: id, user: noEmail });
    expect(Buffer.from(SAMLResponse, 'base64').toString()).not.toContain(CLAIMS.email);
    expect(refusal(await consumeAssertion(config, state, { SAMLResponse }))).toBe(`the assertion has no email attribute (${CLAIMS.email})`);
  });

  it('garbage and missing input, without echoing it', async () => {
    expect(refusal(await consumeAssertion(config, state, {}))).toBe('no SAMLResponse in the form');
    const garbage = Buffer.from('<not-saml secret="hunter2"/>').toString('base64');
    const reason = refusal(await consumeAssertion(config, state, { SAMLResponse: garbage }));
    expect(reason).toBe('the response is not a schema-valid SAML response');
  });
});

describe('samlChecks', () => {
  const good = () => ({
    entity_id: idp.entityId,
    sso_url: idp.ssoUrl,
    certificate: idp.certificate,
    sp_private_key: spKeys.private_key,
    sp_certificate: spKeys.certificate,
    attribute_mapping: { email: CLAIMS.email, first_name: CLAIMS.first_name },
  });
  const byName = (checks: { name: string; passed: boolean; message: string }[], name: string) => checks.find((c) => c.name === name)!;

  it('a good configuration passes all four, in order', async () => {
    const result = await samlChecks(good(), client);
    expect(result.checks.map((c) => c.name)).toEqual(['certificate_validity', 'sso_url_reachable', 'sp_keypair_valid', 'attribute_mapping']);
    expect(result.checks.every((c) => c.passed)).toBe(true);
    expect(result.success).toBe(true);
    const validTo = new Date(new X509Certificate(idp.certificate).validTo).toISOString();
    expect(byName(result.checks, 'certificate_validity').message).toBe(`valid until ${validTo}`);
    expect(byName(result.checks, 'sso_url_reachable').message).toBe('reachable (HTTP 200)');
    expect(byName(result.checks, 'sp_keypair_valid').message).toMatch(/^RSA 2048-bit private key matches the SP certificate/);
    expect(byName(result.checks, 'attribute_mapping').message).toBe(`email is mapped to ${CLAIMS.email}`);
  });

  it('an expired IdP certificate', async () => {
    const year = 365 * 24 * 3600_000;
    const expired = await selfsigned([{ name: 'commonName', value: 'old idp' }], {
      keySize: 2048,
      algorithm: 'sha256',
      notBeforeDate: new Date(Date.now() - 2 * year),
      notAfterDate: new Date(Date.now() - year),
    });
    const result = await samlChecks({ ...good(), certificate: expired.cert }, client);
    const check = byName(result.checks, 'certificate_validity');
    expect(check.passed).toBe(false);
    expect(check.message).toBe(`expired on ${new Date(new X509Certificate(expired.cert).validTo).toISOString()}`);
    expect(result.success).toBe(false);
    expect(result.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual(['certificate_validity']);
  });

  it('an unparseable IdP certificate', async () => {
    const check = byName((await samlChecks({ ...good(), certificate: '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----' }, client)).checks, 'certificate_validity');
    expect(check).toEqual({ name: 'certificate_validity', passed: false, message: 'the IdP certificate is not a parseable X.509 certificate (PEM)' });
  });

  it('an unreachable SSO URL (closed port), and one answering 500', async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const closed = await samlChecks({ ...good(), sso_url: `http://127.0.0.1:${port}/sso` }, client);
    expect(closed.success).toBe(false);
    const check = byName(closed.checks, 'sso_url_reachable');
    expect(check.passed).toBe(false);
    expect(check.message).toMatch(new RegExp(`^cannot reach 127\\.0\\.0\\.1:${port}: ECONNREFUSED`));

    const failing = byName((await samlChecks({ ...good(), sso_url: `${idp.baseUrl}/broken` }, client)).checks, 'sso_url_reachable');
    expect(failing).toEqual({ name: 'sso_url_reachable', passed: false, message: 'the SSO URL answered HTTP 500' });
    const missing = byName((await samlChecks({ ...good(), sso_url: `${idp.baseUrl}/nothing-here` }, client)).checks, 'sso_url_reachable');
    expect(missing).toEqual({ name: 'sso_url_reachable', passed: true, message: 'reachable (HTTP 404)' });
  });

  it('an SSO URL on an address the outbound policy refuses', async () => {
    const strict = new OutboundClient(outboundPolicy([]));
    const check = byName((await samlChecks(good(), strict)).checks, 'sso_url_reachable');
    expect(check.passed).toBe(false);
    expect(check.message).toMatch(/resolves to an address cairn does not call/);
  });

  it('an SP private key that does not match its certificate', async () => {
    const result = await samlChecks({ ...good(), sp_certificate: idp.certificate }, client);
    expect(byName(result.checks, 'sp_keypair_valid')).toEqual({ name: 'sp_keypair_valid', passed: false, message: 'the SP private key does not match the SP certificate' });
    expect(result.success).toBe(false);
    const half = await samlChecks({ ...good(), sp_certificate: undefined }, client);
    expect(byName(half.checks, 'sp_keypair_valid').message).toBe('an SP private key is configured without its certificate');
    const garbled = await samlChecks({ ...good(), sp_private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }, client);
    expect(byName(garbled.checks, 'sp_keypair_valid').message).toBe('the SP private key is not a parseable PEM private key');
    // The messages never carry the key.
    for (const c of [...result.checks, ...half.checks, ...garbled.checks]) expect(c.message).not.toContain('PRIVATE KEY');
  });

  it('a mapping without email', async () => {
    for (const attribute_mapping of [{ first_name: CLAIMS.first_name }, { email: '  ' }] as Record<string, string>[]) {
      const result = await samlChecks({ ...good(), attribute_mapping }, client);
      expect(byName(result.checks, 'attribute_mapping')).toEqual({ name: 'attribute_mapping', passed: false, message: 'the required attribute email is not mapped to a claim' });
      expect(result.success).toBe(false);
    }
  });
});

describe('generateSpKeypair', () => {
  it('gives an RSA 2048-bit key matching its self-signed certificate', async () => {
    const pair = await generateSpKeypair();
    expect(pair.private_key).toMatch(/^-----BEGIN (RSA )?PRIVATE KEY-----/);
    expect(pair.certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const key = createPrivateKey(pair.private_key);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const cert = new X509Certificate(pair.certificate);
    expect(cert.checkPrivateKey(key)).toBe(true);
    expect(cert.subject).toBe(cert.issuer); // self-signed
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(new Date(cert.validFrom).getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now() + 9 * 365 * 24 * 3600_000);
    expect((await generateSpKeypair()).private_key).not.toBe(pair.private_key);
  });
});

describe('fetchIdpMetadata', () => {
  it('reads entity id, SSO/SLO URLs (redirect binding first) and the signing certificate', async () => {
    const meta = await fetchIdpMetadata(idp.metadataUrl, client);
    expect(meta.entity_id).toBe(idp.entityId);
    expect(meta.sso_url).toBe(idp.ssoUrl);
    expect(meta.slo_url).toBe(idp.sloUrl); // the IdP lists its POST SLO first; the redirect one is picked
    expect(meta.certificate).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(new X509Certificate(meta.certificate).fingerprint256).toBe(new X509Certificate(idp.certificate).fingerprint256);
  });

  it('gives a configuration that completes a login', async () => {
    const meta = await fetchIdpMetadata(idp.metadataUrl, client);
    const fetched: SamlConfig = { ...config, idpEntityId: meta.entity_id, ssoUrl: meta.sso_url, sloUrl: meta.slo_url ?? undefined, idpCertificate: meta.certificate };
    const { url } = await loginRedirect(fetched, state);
    const request = await idp.readRequest(sp, url);
    const SAMLResponse = await idp.loginResponse(sp, { inResponseTo: request.id, user: ALICE });
    expect((await consumeAssertion(fetched, state, { SAMLResponse })).ok).toBe(true);
  });

  it('refuses an address the outbound policy does not allow', async () => {
    const strict = new OutboundClient(outboundPolicy([]));
    for (const url of ['http://169.254.169.254/latest/meta-data/', idp.metadataUrl]) {
      const err = await fetchIdpMetadata(url, strict).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OutboundError);
      expect((err as OutboundError).code).toBe('blocked_address');
    }
  });

  it('says what is wrong with a document that is not IdP metadata', async () => {
    await expect(fetchIdpMetadata(`${idp.baseUrl}/nothing-here`, client)).rejects.toThrow('the metadata URL answered HTTP 404');
    await expect(fetchIdpMetadata(`${idp.baseUrl}/sp-only-metadata`, client)).rejects.toThrow(/no IDPSSODescriptor/);
    await expect(fetchIdpMetadata(`${idp.baseUrl}/html`, client)).rejects.toThrow(/^not valid SAML metadata/);
    await expect(fetchIdpMetadata(`${idp.baseUrl}/sso`, client)).rejects.toThrow(/^not valid SAML metadata/);
  });
});

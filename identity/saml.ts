// cairn as a SAML 2.0 service provider (SP-initiated Web Browser SSO: the
// AuthnRequest goes out over HTTP-Redirect, the Response comes back over
// HTTP-POST), plus the settings helpers of SPEC 4.1: the four-check SAML test,
// SP key pair generation and IdP metadata fetching.
//
// samlify does the XML security work. What it checks on a login response
// (read from samlify 2.13 build/src/flow.js postFlow and libsaml.js
// verifySignature):
//   - the schema (through the validator registered below), the top-level
//     Status is Success;
//   - an XML signature on the Response or on the Assertion verifies against
//     the configured IdP certificate (a certificate in the signature's KeyInfo
//     must equal it); an unsigned response is refused; signature-wrapping
//     shapes are refused and the fields it extracts come from the signed
//     assertion only;
//   - the assertion's Issuer is the configured IdP entity id;
//   - Conditions NotBefore/NotOnOrAfter, but only when Conditions is present,
//     and AuthnStatement SessionNotOnOrAfter when present.
// What it does not check, and this module does (consumeAssertion):
//   - Audience (it extracts it and never compares), Destination, the bearer
//     SubjectConfirmationData Recipient and NotOnOrAfter;
//   - InResponseTo against requests this SP issued (it does not remember
//     requests), replay of an assertion id, and the presence of an expiry
//     at all (samlify skips the time check when Conditions is missing).
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';
import { DOMParser } from '@xmldom/xmldom';
import samlify from 'samlify';
import type { IdentityProviderInstance, ServiceProviderInstance } from 'samlify';
import { generate as selfsigned } from 'selfsigned';
import { OutboundError, type OutboundClient } from '../lib/outbound/client.js';
import type { HotState } from '../pipeline/state/types.js';

export interface SamlConfig {
  idpEntityId: string; // settings saml.entity_id
  ssoUrl: string; // IdP SSO URL (HTTP-Redirect binding)
  sloUrl?: string;
  idpCertificate: string; // PEM (settings saml.certificate); a bare base64 body is accepted too
  spEntityId: string; // e.g. https://cairn.example/api/v1/auth/saml/metadata
  acsUrl: string; // e.g. https://cairn.example/api/v1/auth/saml/acs
  spPrivateKey?: string; // PEM; when set, AuthnRequests are signed
  spCertificate?: string; // PEM; published in the SP metadata
  attributeMapping: { email: string; first_name?: string; last_name?: string; groups?: string }; // claim URIs/names
  clockSkewMs: number; // default 120000 (DEFAULT_CLOCK_SKEW_MS)
}

export interface SamlIdentity {
  /** Subject NameID; the email when the assertion has none. */
  nameId: string;
  email: string;
  firstName: string;
  lastName: string;
  groups: string[];
}

export interface SamlCheck {
  name: 'certificate_validity' | 'sso_url_reachable' | 'sp_keypair_valid' | 'attribute_mapping';
  passed: boolean;
  message: string;
}

export type SamlConsumeResult = { ok: true; identity: SamlIdentity; relayState?: string } | { ok: false; reason: string };

export const DEFAULT_CLOCK_SKEW_MS = 120_000;
/** How long an issued AuthnRequest id is accepted as InResponseTo. */
export const REQUEST_TTL_MS = 10 * 60_000;
/** SAML bindings 3.4.3: RelayState MUST NOT exceed 80 bytes. */
export const MAX_RELAY_STATE_BYTES = 80;
/** Largest SAMLResponse form value read (base64). */
export const MAX_RESPONSE_BYTES = 512 * 1024;

const NS = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
  dsig: 'http://www.w3.org/2000/09/xmldsig#',
};
const BINDING = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
};
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const NAMEID_UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';

// samlify refuses to parse anything until a schema validator is registered;
// the xmllint WASM one validates against the SAML 2.0 protocol/assertion XSDs.
// The package ships no type declarations, hence require.
const require = createRequire(import.meta.url);
const xmllint = require('@authenio/samlify-xmllint-wasm') as { validate(xml: string): Promise<unknown> };
samlify.setSchemaValidator({ validate: (xml: string) => xmllint.validate(xml) });

// ---------------------------------------------------------------------------
// Service provider

/** The SP metadata document to hand to the IdP (entity id, ACS, signing certificate). */
export function spMetadata(config: SamlConfig): string {
  return entities(config).sp.getMetadata();
}

/**
 * Builds the IdP redirect URL carrying a new AuthnRequest and remembers the
 * request id (with the relay state) for REQUEST_TTL_MS so the response can be
 * matched by InResponseTo.
 */
export async function loginRedirect(config: SamlConfig, state: HotState, relayState?: string): Promise<{ url: string; requestId: string }> {
  if (relayState !== undefined && Buffer.byteLength(relayState, 'utf8') > MAX_RELAY_STATE_BYTES) {
    throw new Error(`RelayState is longer than ${MAX_RELAY_STATE_BYTES} bytes (SAML bindings 3.4.3)`);
  }
  const { sp, idp } = entities(config);
  const request = sp.createLoginRequest(idp, 'redirect', relayState === undefined ? {} : { relayState });
  if (!request.id) throw new Error('samlify produced an AuthnRequest without an id');
  await state.set(requestKey(request.id), JSON.stringify({ relayState: relayState ?? null }), REQUEST_TTL_MS);
  return { url: request.context, requestId: request.id };
}

/**
 * Checks a POSTed SAMLResponse and maps the assertion to an identity. Every
 * refusal is a short plain-text reason fit for a log line and a login error
 * page; none carries a stack trace or key material.
 */
export async function consumeAssertion(
  config: SamlConfig,
  state: HotState,
  form: { SAMLResponse?: string; RelayState?: string },
): Promise<SamlConsumeResult> {
  const encoded = form.SAMLResponse;
  if (typeof encoded !== 'string' || encoded.trim() === '') return refuse('no SAMLResponse in the form');
  if (encoded.length > MAX_RESPONSE_BYTES) return refuse('SAMLResponse is too large');
  const xml = Buffer.from(encoded, 'base64').toString('utf8');
  const skew = config.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS;
  const { sp, idp } = entities(config);

  // samlify: schema, status, signature (response or assertion), issuer, Conditions times.
  try {
    await sp.parseLoginResponse(idp, 'post', { body: { SAMLResponse: encoded } });
  } catch (err) {
    return refuse(describeSamlifyError(err, xml));
  }
  // The assertion the signature covers (samlify does not hand it back): every
  // further check reads this, never the unsigned rest of the document.
  let verified: string | null;
  try {
    [, verified] = samlify.SamlLib.verifySignature(xml, { metadata: idp.entityMeta, signatureAlgorithm: RSA_SHA256 });
  } catch {
    verified = null;
  }
  if (!verified) return refuse('the response carries no signed assertion');
  let assertion: AssertionFields;
  let response: { destination: string | null; inResponseTo: string | null };
  try {
    assertion = readAssertion(verified);
    response = readResponseEnvelope(xml);
  } catch {
    return refuse('the assertion cannot be read');
  }

  const now = Date.now();
  if (response.destination !== null && response.destination !== config.acsUrl) return refuse('the response is addressed to another service (Destination)');
  if (assertion.audienceRestrictions.length === 0) return refuse('the assertion has no audience restriction');
  if (!assertion.audienceRestrictions.every((audiences) => audiences.includes(config.spEntityId))) {
    return refuse('the assertion is for another audience');
  }
  const notBefore = time(assertion.conditions?.notBefore);
  const notOnOrAfter = time(assertion.conditions?.notOnOrAfter);
  if (Number.isNaN(notBefore) || Number.isNaN(notOnOrAfter)) return refuse('the assertion has an unreadable validity time');
  if (notBefore !== null && now + skew < notBefore) return refuse('the assertion is not yet valid');
  if (notOnOrAfter !== null && now - skew >= notOnOrAfter) return refuse('the assertion has expired');

  // Web Browser SSO profile 4.1.4.2: a bearer SubjectConfirmation whose data
  // names this ACS and is still valid.
  const bearers = assertion.confirmations.filter((c) => c.method === BEARER);
  if (bearers.length === 0) return refuse('the assertion has no bearer subject confirmation');
  const confirmation = bearers.find((c) => {
    const until = time(c.notOnOrAfter);
    return (c.recipient === null || c.recipient === config.acsUrl) && (until === null || now - skew < until); // NaN compares false
  });
  if (!confirmation) {
    if (bearers.some((c) => c.recipient !== null && c.recipient !== config.acsUrl)) return refuse('the subject confirmation is for another recipient');
    return refuse('the subject confirmation has expired');
  }

  // Expiry of the assertion: the earliest NotOnOrAfter it states. Without any
  // the replay mark below could not be kept for as long as it matters.
  const confirmationUntil = time(confirmation.notOnOrAfter);
  const expiries = [notOnOrAfter, confirmationUntil].filter((t): t is number => typeof t === 'number');
  if (expiries.length === 0) return refuse('the assertion has no expiry (NotOnOrAfter)');
  const expiresAt = Math.min(...expiries);

  if (!assertion.id) return refuse('the assertion has no ID');
  const fresh = await state.setIfAbsent(assertionKey(config.idpEntityId, assertion.id), '1', Math.max(1000, expiresAt + skew - now));
  if (!fresh) return refuse('the assertion was already used (replay)');

  // InResponseTo from the signed SubjectConfirmationData; the Response's own
  // attribute (unsigned when only the assertion is signed) must agree.
  const inResponseTo = confirmation.inResponseTo;
  if (!inResponseTo) return refuse('unsolicited response (no InResponseTo); only logins started at cairn are accepted');
  if (response.inResponseTo !== null && response.inResponseTo !== inResponseTo) return refuse('the response and its assertion answer different requests');
  const issued = inResponseTo.length <= 256 ? await state.get(requestKey(inResponseTo)) : null;
  if (issued === null) return refuse('the response answers no login request cairn has open (unknown or expired InResponseTo)');
  // get + delete is not atomic; a marker set once makes the request single-use.
  if (!(await state.setIfAbsent(`${requestKey(inResponseTo)}:used`, '1', REQUEST_TTL_MS))) return refuse('the login request was already answered');
  await state.delete(requestKey(inResponseTo));
  const remembered = parseRemembered(issued);
  if (typeof form.RelayState === 'string' && form.RelayState !== '' && remembered.relayState !== null && form.RelayState !== remembered.relayState) {
    return refuse('RelayState does not match the login request');
  }

  const mapping = config.attributeMapping;
  const email = mapping.email ? first(assertion.attributes, mapping.email)?.trim() : undefined;
  if (!email) return refuse(`the assertion has no email attribute (${mapping.email || 'email is not mapped'})`);
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) return refuse('the email attribute is not an email address');
  const identity: SamlIdentity = {
    nameId: assertion.nameId || email,
    email,
    firstName: (mapping.first_name ? first(assertion.attributes, mapping.first_name) : undefined)?.trim() ?? '',
    lastName: (mapping.last_name ? first(assertion.attributes, mapping.last_name) : undefined)?.trim() ?? '',
    groups: mapping.groups ? (assertion.attributes.get(mapping.groups) ?? []).map((g) => g.trim()).filter(Boolean) : [],
  };
  return remembered.relayState !== null ? { ok: true, identity, relayState: remembered.relayState } : { ok: true, identity };
}

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

function requestKey(id: string): string {
  return `saml:request:${sha256(id)}`;
}

function assertionKey(issuer: string, id: string): string {
  return `saml:assertion:${sha256(`${issuer}\n${id}`)}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function parseRemembered(value: string): { relayState: string | null } {
  try {
    const parsed = JSON.parse(value) as { relayState?: unknown };
    return { relayState: typeof parsed.relayState === 'string' ? parsed.relayState : null };
  } catch {
    return { relayState: null };
  }
}

/** Milliseconds of an xs:dateTime; null when absent, NaN when unreadable. */
function time(value: string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  return Date.parse(value);
}

function first(attributes: Map<string, string[]>, claim: string): string | undefined {
  return attributes.get(claim)?.find((v) => v.trim() !== '');
}

/** samlify's error codes, as reasons a person can act on. Unknown errors are not echoed. */
function describeSamlifyError(err: unknown, xml: string): string {
  const message = err instanceof Error ? err.message : String(err);
  if (message.startsWith('ERR_FAILED_STATUS')) {
    const codes = [...message.matchAll(/code: ([^,\s]+)/g)].map((m) => m[1]!.split(':').pop()).filter((c) => c && c !== 'undefined');
    return `the IdP reported a failure (${codes.join('/') || 'no status'})`;
  }
  switch (message) {
    case 'FAILED_TO_VERIFY_SIGNATURE':
      return isSigned(xml) ? 'the signature does not verify against the IdP certificate (altered or signed by another key)' : 'the response is not signed';
    case 'ERROR_UNMATCH_CERTIFICATE_DECLARATION_IN_METADATA':
      return 'the response is signed with a certificate other than the configured IdP certificate';
    case 'ERR_UNMATCH_ISSUER':
      return 'the assertion was issued by another IdP (Issuer)';
    case 'ERR_SUBJECT_UNCONFIRMED':
      return 'the assertion has expired or is not yet valid';
    case 'ERR_EXPIRED_SESSION':
      return 'the IdP session has expired (SessionNotOnOrAfter)';
    case 'ERR_POTENTIAL_WRAPPING_ATTACK':
      return 'the response has an assertion wrapped inside the subject confirmation (signature wrapping)';
    case 'ERR_EMPTY_ASSERTION':
      return 'the response carries no single signed assertion';
    case 'ERR_UNDEFINED_STATUS':
      return 'the response has no status';
    case 'ERR_EXCEPTION_VALIDATE_XML':
    case 'ERR_INVALID_XML':
      return 'the response is not a schema-valid SAML response';
    case 'NO_SELECTED_CERTIFICATE':
      return 'no IdP certificate is configured';
  }
  if (/^XML (parsing|fatal) error/.test(message)) return 'the response is not well-formed XML';
  return 'the response was rejected';
}

/** Whether the Response or its Assertion carries an XML signature (only to word a refusal). */
function isSigned(xml: string): boolean {
  try {
    const root = parseXml(xml).documentElement;
    if (!root || root.namespaceURI !== NS.protocol || root.localName !== 'Response') return false;
    if (children(root, NS.dsig, 'Signature').length > 0) return true;
    return children(root, NS.assertion, 'Assertion').some((a) => children(a, NS.dsig, 'Signature').length > 0);
  } catch {
    return false;
  }
}

interface Confirmation {
  method: string | null;
  recipient: string | null;
  notOnOrAfter: string | null;
  inResponseTo: string | null;
}

interface AssertionFields {
  id: string | null;
  nameId: string | null;
  conditions: { notBefore: string | null; notOnOrAfter: string | null } | null;
  /** One list of audiences per AudienceRestriction; each must name this SP. */
  audienceRestrictions: string[][];
  confirmations: Confirmation[];
  /** Attribute Name (and FriendlyName) -> values. */
  attributes: Map<string, string[]>;
}

function readAssertion(xml: string): AssertionFields {
  const root = parseXml(xml).documentElement;
  if (!root || root.namespaceURI !== NS.assertion || root.localName !== 'Assertion') throw new Error('not an assertion');
  const subject = children(root, NS.assertion, 'Subject')[0];
  const conditions = children(root, NS.assertion, 'Conditions')[0];
  const attributes = new Map<string, string[]>();
  for (const statement of children(root, NS.assertion, 'AttributeStatement')) {
    for (const attribute of children(statement, NS.assertion, 'Attribute')) {
      const values = children(attribute, NS.assertion, 'AttributeValue').map((v) => v.textContent ?? '');
      for (const name of new Set([attr(attribute, 'Name'), attr(attribute, 'FriendlyName')])) {
        if (name) attributes.set(name, [...(attributes.get(name) ?? []), ...values]);
      }
    }
  }
  return {
    id: attr(root, 'ID'),
    nameId: subject ? (children(subject, NS.assertion, 'NameID')[0]?.textContent?.trim() ?? null) : null,
    conditions: conditions ? { notBefore: attr(conditions, 'NotBefore'), notOnOrAfter: attr(conditions, 'NotOnOrAfter') } : null,
    audienceRestrictions: conditions
      ? children(conditions, NS.assertion, 'AudienceRestriction').map((r) => children(r, NS.assertion, 'Audience').map((a) => (a.textContent ?? '').trim()))
      : [],
    confirmations: subject
      ? children(subject, NS.assertion, 'SubjectConfirmation').map((c) => {
          const data = children(c, NS.assertion, 'SubjectConfirmationData')[0];
          return {
            method: attr(c, 'Method'),
            recipient: data ? attr(data, 'Recipient') : null,
            notOnOrAfter: data ? attr(data, 'NotOnOrAfter') : null,
            inResponseTo: data ? attr(data, 'InResponseTo') : null,
          };
        })
      : [],
    attributes,
  };
}

function readResponseEnvelope(xml: string): { destination: string | null; inResponseTo: string | null } {
  const root = parseXml(xml).documentElement;
  if (!root || root.namespaceURI !== NS.protocol || root.localName !== 'Response') throw new Error('not a response');
  return { destination: attr(root, 'Destination'), inResponseTo: attr(root, 'InResponseTo') };
}

// ---------------------------------------------------------------------------
// samlify entities for a configuration. Building them parses metadata, and
// samlify warns on the console about an IdP without SingleLogoutService each
// time, so a few are kept (keyed by a hash of the whole configuration).

const entityCache = new Map<string, { sp: ServiceProviderInstance; idp: IdentityProviderInstance }>();

function entities(config: SamlConfig): { sp: ServiceProviderInstance; idp: IdentityProviderInstance } {
  const key = sha256(JSON.stringify([config.idpEntityId, config.ssoUrl, config.sloUrl, config.idpCertificate, config.spEntityId, config.acsUrl, config.spPrivateKey, config.spCertificate, config.clockSkewMs]));
  const cached = entityCache.get(key);
  if (cached) return cached;
  const signed = Boolean(config.spPrivateKey);
  const skew = config.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS;
  const sp = samlify.ServiceProvider({
    entityID: config.spEntityId,
    assertionConsumerService: [{ Binding: BINDING.post, Location: config.acsUrl }],
    authnRequestsSigned: signed,
    wantAssertionsSigned: true,
    ...(config.spPrivateKey ? { privateKey: config.spPrivateKey } : {}),
    ...(config.spCertificate ? { signingCert: config.spCertificate } : {}),
    requestSignatureAlgorithm: RSA_SHA256,
    nameIDFormat: [NAMEID_UNSPECIFIED],
    allowCreate: true,
    // samlify adds the first to NotBefore and the second to NotOnOrAfter.
    clockDrifts: [-skew, skew],
  });
  const idp = samlify.IdentityProvider({
    entityID: config.idpEntityId,
    signingCert: config.idpCertificate,
    singleSignOnService: [{ Binding: BINDING.redirect, Location: config.ssoUrl }],
    ...(config.sloUrl ? { singleLogoutService: [{ Binding: BINDING.redirect, Location: config.sloUrl }] } : {}),
    // samlify refuses to build a request when these two flags disagree.
    wantAuthnRequestsSigned: signed,
    requestSignatureAlgorithm: RSA_SHA256,
  });
  if (entityCache.size >= 16) entityCache.delete(entityCache.keys().next().value!);
  entityCache.set(key, { sp, idp });
  return { sp, idp };
}

// ---------------------------------------------------------------------------
// Settings helpers (SPEC 4.1)

/** POST /v1/admin/settings/auth/saml/test: the four checks, in order; success when all pass. */
export async function samlChecks(
  input: {
    entity_id?: string;
    sso_url?: string;
    certificate?: string;
    sp_private_key?: string;
    sp_certificate?: string;
    attribute_mapping?: Record<string, string>;
  },
  client: OutboundClient,
): Promise<{ success: boolean; checks: SamlCheck[] }> {
  const checks: SamlCheck[] = [
    certificateCheck(input.certificate),
    await ssoCheck(input.sso_url, client),
    keypairCheck(input.sp_private_key, input.sp_certificate),
    mappingCheck(input.attribute_mapping),
  ];
  return { success: checks.every((c) => c.passed), checks };
}

function certificateCheck(certificate: string | undefined): SamlCheck {
  const name = 'certificate_validity';
  if (!certificate?.trim()) return { name, passed: false, message: 'no IdP certificate configured' };
  const cert = parseCertificate(certificate);
  if (!cert) return { name, passed: false, message: 'the IdP certificate is not a parseable X.509 certificate (PEM)' };
  const from = new Date(cert.validFrom);
  const to = new Date(cert.validTo);
  const now = Date.now();
  if (now < from.getTime()) return { name, passed: false, message: `not valid before ${from.toISOString()}` };
  if (now > to.getTime()) return { name, passed: false, message: `expired on ${to.toISOString()}` };
  return { name, passed: true, message: `valid until ${to.toISOString()}` };
}

async function ssoCheck(url: string | undefined, client: OutboundClient): Promise<SamlCheck> {
  const name = 'sso_url_reachable';
  if (!url?.trim()) return { name, passed: false, message: 'no SSO URL configured' };
  try {
    const response = await client.request({ url: url.trim(), method: 'GET', timeoutMs: 5000, maxBytes: 1024 * 1024 });
    return response.status < 500
      ? { name, passed: true, message: `reachable (HTTP ${response.status})` }
      : { name, passed: false, message: `the SSO URL answered HTTP ${response.status}` };
  } catch (err) {
    if (err instanceof OutboundError && err.code === 'too_large') return { name, passed: true, message: 'reachable (answered with a large page)' };
    return { name, passed: false, message: err instanceof OutboundError ? err.message : 'cannot reach the SSO URL' };
  }
}

function keypairCheck(privateKey: string | undefined, certificate: string | undefined): SamlCheck {
  const name = 'sp_keypair_valid';
  const hasKey = Boolean(privateKey?.trim());
  const hasCert = Boolean(certificate?.trim());
  // Signing AuthnRequests is optional (SamlConfig.spPrivateKey); half a pair is a mistake.
  if (!hasKey && !hasCert) return { name, passed: true, message: 'no SP key pair configured; AuthnRequests are sent unsigned' };
  if (!hasKey) return { name, passed: false, message: 'an SP certificate is configured without its private key' };
  if (!hasCert) return { name, passed: false, message: 'an SP private key is configured without its certificate' };
  let key;
  try {
    key = createPrivateKey(privateKey!);
  } catch {
    return { name, passed: false, message: 'the SP private key is not a parseable PEM private key' };
  }
  const cert = parseCertificate(certificate!);
  if (!cert) return { name, passed: false, message: 'the SP certificate is not a parseable X.509 certificate (PEM)' };
  if (!cert.checkPrivateKey(key)) return { name, passed: false, message: 'the SP private key does not match the SP certificate' };
  const bits = key.asymmetricKeyDetails?.modulusLength;
  const kind = key.asymmetricKeyType === 'rsa' && bits ? `RSA ${bits}-bit` : (key.asymmetricKeyType ?? 'the');
  return { name, passed: true, message: `${kind} private key matches the SP certificate (valid until ${new Date(cert.validTo).toISOString()})` };
}

function mappingCheck(mapping: Record<string, string> | undefined): SamlCheck {
  const name = 'attribute_mapping';
  const email = mapping?.email;
  if (typeof email !== 'string' || email.trim() === '') return { name, passed: false, message: 'the required attribute email is not mapped to a claim' };
  return { name, passed: true, message: `email is mapped to ${email.trim()}` };
}

/** Parses a PEM certificate, or a bare base64 body as metadata carries it; null when it is neither. */
function parseCertificate(text: string): X509Certificate | null {
  try {
    return new X509Certificate(toPem(text));
  } catch {
    return null;
  }
}

function toPem(text: string): string {
  if (text.includes('-----BEGIN CERTIFICATE-----')) return text.trim();
  const body = text.replace(/\s+/g, '');
  return `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
}

/** POST /v1/admin/settings/auth/saml/generate-keypair: RSA 2048 and a self-signed certificate (10 years, SHA-256), PEM. */
export async function generateSpKeypair(commonName = 'cairn SAML service provider'): Promise<{ private_key: string; certificate: string }> {
  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate);
  notAfterDate.setUTCFullYear(notAfterDate.getUTCFullYear() + 10);
  const pems = await selfsigned([{ name: 'commonName', value: commonName }], {
    keyType: 'rsa',
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
    ],
  });
  return { private_key: pems.private, certificate: pems.cert };
}

/**
 * POST /v1/admin/settings/auth/saml/fetch-metadata: GETs IdP metadata through
 * the outbound client and reads entity id, SSO URL (HTTP-Redirect, else
 * HTTP-POST), SLO URL and the signing certificate (as PEM). Throws an Error
 * with a plain message (OutboundError for refused or failed requests).
 */
export async function fetchIdpMetadata(
  metadataUrl: string,
  client: OutboundClient,
): Promise<{ entity_id: string; sso_url: string; slo_url: string | null; certificate: string }> {
  const response = await client.request({
    url: metadataUrl,
    method: 'GET',
    headers: { accept: 'application/samlmetadata+xml, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.1' },
    timeoutMs: 10_000,
    maxBytes: 2 * 1024 * 1024,
  });
  if (response.status < 200 || response.status >= 300) throw new Error(`the metadata URL answered HTTP ${response.status}`);
  return parseIdpMetadata(response.text());
}

/** The reading half of fetchIdpMetadata, for metadata pasted or uploaded rather than fetched. */
export function parseIdpMetadata(xml: string): { entity_id: string; sso_url: string; slo_url: string | null; certificate: string } {
  let root: Element | null;
  try {
    root = parseXml(xml).documentElement;
  } catch {
    throw new Error('not valid SAML metadata: the document is not well-formed XML');
  }
  if (!root || root.namespaceURI !== NS.metadata) throw new Error('not valid SAML metadata: expected an EntityDescriptor in the SAML 2.0 metadata namespace');
  let entity: Element;
  if (root.localName === 'EntityDescriptor') {
    entity = root;
  } else if (root.localName === 'EntitiesDescriptor') {
    const idps = descendants(root, NS.metadata, 'EntityDescriptor').filter((e) => children(e, NS.metadata, 'IDPSSODescriptor').length > 0);
    if (idps.length === 0) throw new Error('the metadata has no IDPSSODescriptor (it describes no identity provider)');
    if (idps.length > 1) throw new Error(`the metadata describes ${idps.length} identity providers; use the metadata URL of one`);
    entity = idps[0]!;
  } else {
    throw new Error(`not valid SAML metadata: the root element is ${root.localName}, expected EntityDescriptor`);
  }
  const entityId = attr(entity, 'entityID');
  if (!entityId) throw new Error('not valid SAML metadata: the EntityDescriptor has no entityID');
  const descriptor = children(entity, NS.metadata, 'IDPSSODescriptor')[0];
  if (!descriptor) throw new Error('the metadata has no IDPSSODescriptor (it describes no identity provider)');

  const endpoint = (service: string): string | null => {
    const all = children(descriptor, NS.metadata, service);
    for (const binding of [BINDING.redirect, BINDING.post]) {
      const location = all.map((e) => (attr(e, 'Binding') === binding ? attr(e, 'Location') : null)).find(Boolean);
      if (location) return location;
    }
    return null;
  };
  const sso = endpoint('SingleSignOnService');
  if (!sso) throw new Error('the IDPSSODescriptor has no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding');

  const keys = children(descriptor, NS.metadata, 'KeyDescriptor').filter((k) => {
    const use = attr(k, 'use');
    return use === null || use === 'signing';
  });
  const bodies = keys.flatMap((k) =>
    children(k, NS.dsig, 'KeyInfo').flatMap((info) =>
      children(info, NS.dsig, 'X509Data').flatMap((data) => children(data, NS.dsig, 'X509Certificate').map((c) => (c.textContent ?? '').replace(/\s+/g, ''))),
    ),
  );
  const body = bodies.find((b) => b !== '');
  if (!body) throw new Error('the IDPSSODescriptor has no signing certificate (KeyDescriptor X509Certificate)');
  const certificate = toPem(body);
  if (!parseCertificate(certificate)) throw new Error('the signing certificate in the metadata is not a valid X.509 certificate');
  return { entity_id: entityId, sso_url: sso, slo_url: endpoint('SingleLogoutService'), certificate };
}

// ---------------------------------------------------------------------------
// XML: xmldom (samlify's own parser), namespace-aware, errors are fatal.

function parseXml(xml: string): Document {
  const parser = new DOMParser({
    errorHandler: {
      warning: () => {},
      error: (msg: string) => {
        throw new Error(`XML parsing error: ${msg}`);
      },
      fatalError: (msg: string) => {
        throw new Error(`XML fatal error: ${msg}`);
      },
    },
  });
  return parser.parseFromString(xml, 'text/xml');
}

function children(parent: Element, ns: string, localName: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1 && (node as Element).namespaceURI === ns && (node as Element).localName === localName) found.push(node as Element);
  }
  return found;
}

function descendants(parent: Element, ns: string, localName: string): Element[] {
  return Array.from(parent.getElementsByTagNameNS(ns, localName));
}

function attr(element: Element, name: string): string | null {
  return element.hasAttribute(name) ? element.getAttribute(name) : null;
}

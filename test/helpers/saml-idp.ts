// A SAML identity provider for tests: a samlify IdentityProvider with its own
// RSA key and self-signed certificate, served over HTTP on 127.0.0.1 (its
// metadata, an SSO page and a few broken documents). It reads cairn's
// AuthnRequests (checking their redirect signature when cairn signs) and
// answers with login responses signed the way a real IdP does (the assertion
// signed), or deliberately broken ones: altered after signing, for another
// audience, expired, for another recipient, or not signed at all.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import samlify from 'samlify';
import type { IdentityProviderInstance, ServiceProviderInstance } from 'samlify';
import { generateSpKeypair } from '../../identity/saml.js';

const BINDING = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
};
const URI_FORMAT = 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri';

/** Claim names the test IdP sends (the ones Azure AD / ADFS use). */
export const CLAIMS = {
  email: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  first_name: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname',
  last_name: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname',
  groups: 'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups',
} as const;

// samlify's tag for an attribute's value is 'attr' + the camel-cased valueTag.
const ATTRIBUTES = [
  { key: 'email', name: CLAIMS.email, tag: 'attrEmail' },
  { key: 'firstName', name: CLAIMS.first_name, tag: 'attrGiven' },
  { key: 'lastName', name: CLAIMS.last_name, tag: 'attrSurname' },
  { key: 'groups', name: CLAIMS.groups, tag: 'attrGroups' },
] as const;

// samlify's default login response, with an AuthnStatement slot filled below.
const RESPONSE_TEMPLATE =
  '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="{ID}" Version="2.0" IssueInstant="{IssueInstant}" Destination="{Destination}" InResponseTo="{InResponseTo}">' +
  '<saml:Issuer>{Issuer}</saml:Issuer><samlp:Status><samlp:StatusCode Value="{StatusCode}"/></samlp:Status>' +
  '<saml:Assertion xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="{AssertionID}" Version="2.0" IssueInstant="{IssueInstant}">' +
  '<saml:Issuer>{Issuer}</saml:Issuer>' +
  '<saml:Subject><saml:NameID Format="{NameIDFormat}">{NameID}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="{SubjectConfirmationDataNotOnOrAfter}" Recipient="{SubjectRecipient}" InResponseTo="{InResponseTo}"/></saml:SubjectConfirmation></saml:Subject>' +
  '<saml:Conditions NotBefore="{ConditionsNotBefore}" NotOnOrAfter="{ConditionsNotOnOrAfter}"><saml:AudienceRestriction><saml:Audience>{Audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>' +
  '<saml:AuthnStatement AuthnInstant="{IssueInstant}" SessionIndex="{SessionIndex}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>' +
  '{AttributeStatement}</saml:Assertion></samlp:Response>';

export interface TestUser {
  nameId: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  groups?: string[];
}

export interface ResponseOptions {
  /** The AuthnRequest id answered (SubjectConfirmationData and Response InResponseTo); null for an unsolicited response. */
  inResponseTo: string | null;
  user: TestUser;
  /** Default: the SP's entity id. */
  audience?: string;
  /** Default: the SP's ACS URL. */
  recipient?: string;
  /** Default now; the assertion is valid for 5 minutes from it. */
  issuedAt?: Date;
  /** Default true; false renders the same response without any signature. */
  signed?: boolean;
  /** Top-level status; default Success. */
  statusCode?: string;
}

export interface TestIdp {
  entityId: string;
  baseUrl: string;
  ssoUrl: string;
  sloUrl: string;
  metadataUrl: string;
  /** PEM */
  certificate: string;
  privateKey: string;
  idp: IdentityProviderInstance;
  /** The SP as this IdP knows it, from cairn's SP metadata. */
  trust(spMetadataXml: string): ServiceProviderInstance;
  /** Reads an AuthnRequest from cairn's redirect URL (verifying its signature when the SP signs). */
  readRequest(sp: ServiceProviderInstance, redirectUrl: string): Promise<{ id: string; issuer: string; acsUrl: string; relayState: string | null }>;
  /** A base64 SAMLResponse as the HTTP-POST binding carries it. */
  loginResponse(sp: ServiceProviderInstance, options: ResponseOptions): Promise<string>;
  close(): Promise<void>;
}

/** Starts an IdP (own key pair, HTTP server on 127.0.0.1:random). */
export async function startTestIdp(options: { entityId?: string; wantAuthnRequestsSigned?: boolean } = {}): Promise<TestIdp> {
  const keys = await generateSpKeypair('cairn test IdP');
  let metadataXml = '';
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string): void => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (path === '/metadata') return send(200, 'application/samlmetadata+xml', metadataXml);
    if (path === '/sso') return send(200, 'text/html', '<html><body>IdP login</body></html>');
    if (path === '/sp-only-metadata') {
      return send(
        200,
        'application/samlmetadata+xml',
        '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example/"><md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://sp.example/acs" index="0"/></md:SPSSODescriptor></md:EntityDescriptor>',
      );
    }
    if (path === '/html') return send(200, 'text/html', '<html><body><p>Sign in<br></body></html>');
    if (path === '/broken') return send(500, 'text/plain', 'internal error');
    return send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = options.entityId ?? `${baseUrl}/idp`;

  const idp = samlify.IdentityProvider({
    entityID: entityId,
    privateKey: keys.private_key,
    signingCert: keys.certificate,
    wantAuthnRequestsSigned: options.wantAuthnRequestsSigned ?? true,
    singleSignOnService: [
      { Binding: BINDING.redirect, Location: `${baseUrl}/sso` },
      { Binding: BINDING.post, Location: `${baseUrl}/sso-post` },
    ],
    singleLogoutService: [
      { Binding: BINDING.post, Location: `${baseUrl}/slo-post` },
      { Binding: BINDING.redirect, Location: `${baseUrl}/slo` },
    ],
    nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
    loginResponseTemplate: {
      context: RESPONSE_TEMPLATE,
      attributes: ATTRIBUTES.map((a) => ({ name: a.name, nameFormat: URI_FORMAT, valueTag: a.tag.slice('attr'.length).toLowerCase(), valueXsiType: 'xs:string' })),
      // One Attribute element per claim; its values (possibly several) are filled in per response.
      additionalTemplates: { attributeTemplate: { context: '<saml:Attribute Name="{Name}" NameFormat="{NameFormat}">{Value}</saml:Attribute>' } },
    },
  });
  metadataXml = idp.getMetadata();

  const render = (sp: ServiceProviderInstance, template: string, o: ResponseOptions): string => {
    const issued = o.issuedAt ?? new Date();
    const until = new Date(issued.getTime() + 5 * 60_000);
    const acs = sp.entityMeta.getAssertionConsumerService('post') as string;
    let xml = template;
    for (const a of ATTRIBUTES) {
      const raw = o.user[a.key];
      const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      const element = `<saml:Attribute Name="${a.name}" NameFormat="${URI_FORMAT}">{${a.tag}}</saml:Attribute>`;
      xml = xml.replace(
        element,
        values.length === 0 ? '' : element.replace(`{${a.tag}}`, values.map((v) => `<saml:AttributeValue xsi:type="xs:string">${escapeXml(v)}</saml:AttributeValue>`).join('')),
      );
    }
    return samlify.SamlLib.replaceTagsByValue(xml, {
      ID: idp.entitySetting.generateID!(),
      AssertionID: idp.entitySetting.generateID!(),
      Destination: acs,
      Audience: o.audience ?? sp.entityMeta.getEntityID(),
      SubjectRecipient: o.recipient ?? acs,
      Issuer: entityId,
      IssueInstant: issued.toISOString(),
      StatusCode: o.statusCode ?? 'urn:oasis:names:tc:SAML:2.0:status:Success',
      ConditionsNotBefore: issued.toISOString(),
      ConditionsNotOnOrAfter: until.toISOString(),
      SubjectConfirmationDataNotOnOrAfter: until.toISOString(),
      NameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      NameID: o.user.nameId,
      InResponseTo: o.inResponseTo,
      SessionIndex: `_session_${Math.random().toString(36).slice(2)}`,
    });
  };

  return {
    entityId,
    baseUrl,
    ssoUrl: `${baseUrl}/sso`,
    sloUrl: `${baseUrl}/slo`,
    metadataUrl: `${baseUrl}/metadata`,
    certificate: keys.certificate,
    privateKey: keys.private_key,
    idp,
    trust: (spMetadataXml) => samlify.ServiceProvider({ metadata: spMetadataXml }),
    async readRequest(sp, redirectUrl) {
      const url = new URL(redirectUrl);
      const rawQuery = url.search.slice(1);
      // The redirect binding signs the raw query up to &Signature.
      const octetString = rawQuery.split('&').filter((p) => !p.startsWith('Signature=')).join('&');
      const query = Object.fromEntries(url.searchParams);
      const parsed = await idp.parseLoginRequest(sp, 'redirect', { query, octetString });
      const request = parsed.extract.request as Record<string, string>;
      return { id: request.id!, issuer: String(parsed.extract.issuer), acsUrl: request.assertionConsumerServiceUrl!, relayState: url.searchParams.get('RelayState') };
    },
    async loginResponse(sp, o) {
      if (o.signed === false) {
        const template = idp.entitySetting.loginResponseTemplate!.context!;
        return Buffer.from(render(sp, template, o), 'utf8').toString('base64');
      }
      const response = await idp.createLoginResponse(sp, { extract: { request: { id: o.inResponseTo ?? '' } } }, 'post', { email: o.user.email }, {
        customTagReplacement: (template) => ({ id: '', context: render(sp, template, o) }),
      });
      return response.context;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Decodes a SAMLResponse, applies `edit` to the XML text and encodes it again (an attacker's change after signing). */
export function alterResponse(samlResponse: string, edit: (xml: string) => string): string {
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  const altered = edit(xml);
  if (altered === xml) throw new Error('alterResponse: the edit changed nothing');
  return Buffer.from(altered, 'utf8').toString('base64');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

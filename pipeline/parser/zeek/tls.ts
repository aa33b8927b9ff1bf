// Zeek ssl.log and x509.log to ECS, as Elastic's zeek package maps them: the
// handshake (version, cipher, SNI, whether it was established or resumed)
// into tls.*, a certificate into file.x509.*, its distinguished names read
// into their parts.
import { count, text } from '../json-values.js';
import type { EventFields } from '../types.js';
import { lookupTable, setOwn } from '../../../lib/lookup-table.js';
import { zeekTime } from './shared.js';
import type { ZeekLog } from './log.js';

/** RFC 4514 attribute types and the ECS x509 name field each fills. */
const DN_PARTS = lookupTable<string>({
  CN: 'common_name',
  O: 'organization',
  OU: 'organizational_unit',
  L: 'locality',
  ST: 'state_or_province',
  C: 'country',
});

/** "CN=a,O=Acme\, Inc.,C=US" split at its unescaped commas, the escapes undone. */
export function distinguishedName(dn: string): [string, string][] {
  const parts: [string, string][] = [];
  let current = '';
  for (let i = 0; i < dn.length; i++) {
    const c = dn[i]!;
    if (c === '\\' && i + 1 < dn.length) {
      current += dn[++i];
    } else if (c === ',') {
      parts.push(splitAttribute(current));
      current = '';
    } else {
      current += c;
    }
  }
  if (current !== '') parts.push(splitAttribute(current));
  return parts;
}

function splitAttribute(part: string): [string, string] {
  const eq = part.indexOf('=');
  return eq < 0 ? ['', part.trim()] : [part.slice(0, eq).trim().toUpperCase(), part.slice(eq + 1).trim()];
}

/** The parts of a distinguished name as ECS x509 fields under `prefix` (tls.server.x509.subject. ...). */
function addNameParts(fields: EventFields, prefix: string, dn: string): void {
  for (const [type, value] of distinguishedName(dn)) {
    const name = DN_PARTS[type];
    if (name && value !== '' && fields[prefix + name] === undefined) setOwn(fields, prefix + name, value);
  }
}

/** "TLSv12" -> tls / 1.2, "TLSv13" -> tls / 1.3, "SSLv3" -> ssl / 3, "DTLSv12" -> dtls / 1.2. */
function addTlsVersion(fields: EventFields, version: string): void {
  const match = /^(SSL|TLS|DTLS)v(\d)(\d?)$/.exec(version);
  if (!match) return;
  fields['tls.version_protocol'] = match[1]!.toLowerCase();
  fields['tls.version'] = match[3] ? `${match[2]}.${match[3]}` : match[2]!;
}

export const sslLog: ZeekLog = {
  dataset: 'ssl',
  transport: 'tcp',
  mapped: new Set(['cipher', 'curve', 'server_name', 'resumed', 'established', 'subject', 'issuer', 'client_subject', 'client_issuer', 'ja3', 'ja3s']),
  map(fields, record) {
    fields['event.category'] = ['network'];
    fields['event.type'] = ['connection', 'protocol'];
    const version = text(record.version);
    if (version) addTlsVersion(fields, version);
    // ssl.log holds DTLS too (over UDP); its version says so.
    if (version?.startsWith('DTLS')) fields['network.transport'] = 'udp';
    const cipher = text(record.cipher);
    if (cipher) fields['tls.cipher'] = cipher;
    const curve = text(record.curve);
    if (curve) fields['tls.curve'] = curve;
    const serverName = text(record.server_name);
    if (serverName) fields['tls.client.server_name'] = serverName;
    if (typeof record.established === 'boolean') fields['tls.established'] = record.established;
    if (typeof record.resumed === 'boolean') fields['tls.resumed'] = record.resumed;
    const subject = text(record.subject);
    const issuer = text(record.issuer);
    const clientSubject = text(record.client_subject);
    const clientIssuer = text(record.client_issuer);
    if (subject) {
      fields['tls.server.subject'] = subject;
      addNameParts(fields, 'tls.server.x509.subject.', subject);
    }
    if (issuer) {
      fields['tls.server.issuer'] = issuer;
      addNameParts(fields, 'tls.server.x509.issuer.', issuer);
    }
    if (clientSubject) fields['tls.client.subject'] = clientSubject;
    if (clientIssuer) fields['tls.client.issuer'] = clientIssuer;
    // JA3 / JA3S, when the ja3 package adds them.
    const ja3 = text(record.ja3);
    const ja3s = text(record.ja3s);
    if (ja3) fields['tls.client.ja3'] = ja3;
    if (ja3s) fields['tls.server.ja3s'] = ja3s;
  },
};

export const x509Log: ZeekLog = {
  dataset: 'x509',
  mapped: new Set(['certificate.version', 'certificate.serial', 'certificate.key_alg', 'certificate.sig_alg', 'certificate.key_length', 'certificate.exponent', 'san.dns']),
  map(fields, record) {
    fields['event.type'] = ['info'];
    // x509.log names the certificate by its file id (id) or, from Zeek 6, its fingerprint: no connection.
    const id = text(record.id) ?? text(record.fingerprint);
    if (id) fields['event.id'] = id;
    const version = count(record['certificate.version']);
    if (version !== undefined) fields['file.x509.version_number'] = String(version);
    const serial = text(record['certificate.serial']);
    if (serial) fields['file.x509.serial_number'] = serial;
    const subject = text(record['certificate.subject']);
    const issuer = text(record['certificate.issuer']);
    if (subject) addNameParts(fields, 'file.x509.subject.', subject);
    if (issuer) addNameParts(fields, 'file.x509.issuer.', issuer);
    const notBefore = zeekTime(record['certificate.not_valid_before']);
    const notAfter = zeekTime(record['certificate.not_valid_after']);
    if (notBefore) fields['file.x509.not_before'] = notBefore;
    if (notAfter) fields['file.x509.not_after'] = notAfter;
    const keyAlgorithm = text(record['certificate.key_alg']);
    if (keyAlgorithm) fields['file.x509.public_key_algorithm'] = keyAlgorithm;
    const signatureAlgorithm = text(record['certificate.sig_alg']);
    if (signatureAlgorithm) fields['file.x509.signature_algorithm'] = signatureAlgorithm;
    const keyLength = count(record['certificate.key_length']);
    if (keyLength !== undefined) fields['file.x509.public_key_size'] = keyLength;
    const exponent = Number(text(record['certificate.exponent']));
    if (Number.isSafeInteger(exponent)) fields['file.x509.public_key_exponent'] = exponent;
    const names = record['san.dns'];
    if (Array.isArray(names)) {
      const dns = names.filter((n): n is string => typeof n === 'string' && n !== '');
      if (dns.length > 0) fields['file.x509.alternative_names'] = dns;
    }
  },
};

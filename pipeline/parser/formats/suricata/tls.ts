// TLS handshake metadata: version, SNI, the server certificate, JA3/JA3S.
import { isObject, text, type Json } from '../../json-values.js';
import type { EventFields } from '../../types.js';
import { addDestinationDomain, isoTime } from './shared.js';

/** "TLS 1.2" -> tls / 1.2, "SSLv3" -> ssl / 3. */
function addTlsVersion(fields: EventFields, version: string): void {
  if (version === 'UNDETERMINED') return;
  const space = version.indexOf(' ');
  const split = space > 0 ? space : version.lastIndexOf('v');
  if (split <= 0 || split === version.length - 1) return;
  fields['tls.version_protocol'] = version.slice(0, split).toLowerCase();
  fields['tls.version'] = version.slice(split + 1);
}

export function addTls(fields: EventFields, tls: Json): void {
  const version = text(tls.version);
  if (version) addTlsVersion(fields, version);
  const rawSni = text(tls.sni);
  // A fully qualified SNI ends with the root dot; the name is the same without it.
  const sni = rawSni?.endsWith('.') ? rawSni.slice(0, -1) : rawSni;
  if (sni) {
    fields['tls.client.server_name'] = sni;
    addDestinationDomain(fields, sni);
  }
  const subject = text(tls.subject);
  const issuer = text(tls.issuerdn);
  if (subject) fields['tls.server.subject'] = subject;
  if (issuer) fields['tls.server.issuer'] = issuer;
  const fingerprint = text(tls.fingerprint);
  if (fingerprint) fields['tls.server.hash.sha1'] = fingerprint.replaceAll(':', '').toUpperCase();
  const serial = text(tls.serial);
  if (serial) fields['tls.server.x509.serial_number'] = serial.replaceAll(':', '');
  // Certificate validity is written without a zone, in UTC.
  const notBefore = isoTime(tls.notbefore);
  const notAfter = isoTime(tls.notafter);
  if (notBefore) fields['tls.server.not_before'] = notBefore;
  if (notAfter) fields['tls.server.not_after'] = notAfter;
  if (typeof tls.session_resumed === 'boolean') fields['tls.resumed'] = tls.session_resumed;
  const ja3 = isObject(tls.ja3) ? text(tls.ja3.hash) : undefined;
  const ja3s = isObject(tls.ja3s) ? text(tls.ja3s.hash) : undefined;
  if (ja3) fields['tls.client.ja3'] = ja3;
  if (ja3s) fields['tls.server.ja3s'] = ja3s;
}

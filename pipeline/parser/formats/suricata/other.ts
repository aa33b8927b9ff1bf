// The smaller application records: fileinfo (file.*), ssh (software versions),
// smtp (email.*) and anomaly (what the decoder or app-layer parser reported).
import { count, isObject, text, type Json } from '../../json-values.js';
import type { EventFields } from '../../types.js';

const FILE_HASHES = [
  ['md5', 'file.hash.md5'],
  ['sha1', 'file.hash.sha1'],
  ['sha256', 'file.hash.sha256'],
] as const;

export function addFileinfo(fields: EventFields, fileinfo: Json): void {
  const path = text(fileinfo.filename);
  if (path) {
    fields['file.path'] = path;
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (name) fields['file.name'] = name;
  }
  const size = count(fileinfo.size);
  if (size !== undefined) fields['file.size'] = size;
  for (const [key, field] of FILE_HASHES) {
    const value = text(fileinfo[key]);
    if (value) fields[field] = value;
  }
}

const SSH_SIDES = [
  { key: 'client', software: 'suricata.eve.ssh.client.software_version', protoVersion: 'suricata.eve.ssh.client.proto_version' },
  { key: 'server', software: 'suricata.eve.ssh.server.software_version', protoVersion: 'suricata.eve.ssh.server.proto_version' },
] as const;

export function addSsh(fields: EventFields, ssh: Json): void {
  // ECS has no ssh fields; the names are Filebeat's, so queries carry over.
  for (const side of SSH_SIDES) {
    const peer = ssh[side.key];
    if (!isObject(peer)) continue;
    const software = text(peer.software_version);
    const protoVersion = text(peer.proto_version);
    if (software) fields[side.software] = software;
    if (protoVersion) fields[side.protoVersion] = protoVersion;
  }
}

/** "<user@example.com>" -> "user@example.com". */
function mailbox(value: unknown): string | undefined {
  const address = text(value)?.trim();
  if (!address) return undefined;
  return address.startsWith('<') && address.endsWith('>') ? address.slice(1, -1) || undefined : address;
}

export function addSmtp(fields: EventFields, smtp: Json, email: unknown): void {
  const from = mailbox(smtp.mail_from);
  if (from) fields['email.from.address'] = from;
  const to = Array.isArray(smtp.rcpt_to) ? smtp.rcpt_to.map(mailbox).filter((a): a is string => a !== undefined) : [];
  if (to.length > 0) fields['email.to.address'] = to;
  const subject = isObject(email) ? text(email.subject) : undefined;
  if (subject) fields['email.subject'] = subject;
}

export function addAnomaly(fields: EventFields, anomaly: Json): void {
  // e.g. "decoder.ipv4.trunc_pkt" or "applayer.detect_protocol_only_one_direction"
  const action = text(anomaly.event) ?? text(anomaly.type);
  if (action) fields['event.action'] = action;
}

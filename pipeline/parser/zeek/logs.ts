// Which Zeek log a record is. Zeek's JSON writer does not name the log a line
// came from (each log is its own file); shippers that merge them often add
// _path (Security Onion, Corelight, Zeek's Kafka writer), and the artifact's
// source may name it ("zeek_http", "http.log"). Without either, the log is
// told by the fields only it writes in Zeek's default field sets.
import type { Json } from '../json-values.js';
import { lookupTable } from '../../../lib/lookup-table.js';
import { kerberosLog, ntlmLog, rdpLog, sshLog } from './auth.js';
import { connLog } from './conn.js';
import { dnsLog } from './dns.js';
import { httpLog } from './http.js';
import type { ZeekLog } from './log.js';
import { dhcpLog, filesLog, noticeLog, weirdLog } from './other.js';
import { dceRpcLog, smbFilesLog, smbMappingLog } from './smb.js';
import { sslLog, x509Log } from './tls.js';

/** The logs by the name Zeek gives their files (conn.log is "conn"). */
export const LOGS = lookupTable<ZeekLog>({
  conn: connLog,
  dns: dnsLog,
  http: httpLog,
  ssl: sslLog,
  x509: x509Log,
  ssh: sshLog,
  files: filesLog,
  notice: noticeLog,
  weird: weirdLog,
  dce_rpc: dceRpcLog,
  smb_files: smbFilesLog,
  smb_mapping: smbMappingLog,
  kerberos: kerberosLog,
  ntlm: ntlmLog,
  rdp: rdpLog,
  dhcp: dhcpLog,
});

/** A record of a connection-bound log this module has no mapping for (sip, smtp, ...): its endpoints still count. */
export const otherLog: ZeekLog = {
  dataset: 'other',
  mapped: new Set(),
  map(fields) {
    fields['event.category'] = ['network'];
    fields['event.type'] = ['connection', 'info'];
  },
};

function has(record: Json, ...keys: string[]): boolean {
  return keys.some((key) => key in record);
}

/** The log of a record by its fields, most specific first; null when it is no Zeek record this module reads. */
function byFields(record: Json): ZeekLog | null {
  if (has(record, 'conn_state', 'orig_ip_bytes', 'orig_pkts')) return connLog;
  if (has(record, 'trans_id', 'qtype_name', 'qclass') || ('query' in record && 'id.orig_h' in record)) return dnsLog;
  if (has(record, 'certificate.serial', 'certificate.version', 'san.dns')) return x509Log;
  if (has(record, 'request_type') || (has(record, 'client') && has(record, 'till', 'forwardable'))) return kerberosLog;
  // sip.log shares method, uri and status_code with http.log, and has a call id.
  if (has(record, 'method', 'status_code', 'trans_depth') && has(record, 'uri', 'host', 'status_code') && !has(record, 'call_id', 'helo', 'mailfrom')) return httpLog;
  if (has(record, 'established', 'server_name', 'ssl_history', 'cert_chain_fuids', 'cert_chain_fps', 'resumed')) return sslLog;
  if (has(record, 'auth_attempts', 'auth_success', 'host_key_alg', 'kex_alg')) return sshLog;
  if (has(record, 'domainname', 'server_nb_computer_name', 'server_dns_computer_name')) return ntlmLog;
  if (has(record, 'security_protocol', 'keyboard_layout', 'client_build')) return rdpLog;
  if (has(record, 'msg_types', 'assigned_addr', 'lease_time', 'client_addr')) return dhcpLog;
  if ('note' in record) return noticeLog;
  if (has(record, 'endpoint', 'operation', 'named_pipe')) return dceRpcLog;
  if (has(record, 'times.modified', 'prev_name') || (typeof record.action === 'string' && record.action.startsWith('SMB::'))) return smbFilesLog;
  if (has(record, 'share_type', 'native_file_system')) return smbMappingLog;
  if ('fuid' in record && has(record, 'seen_bytes', 'analyzers', 'tx_hosts', 'depth')) return filesLog;
  if ('name' in record && has(record, 'peer', 'addl', 'notice')) return weirdLog;
  return 'id.orig_h' in record ? otherLog : null;
}

/** The log a source name says ("zeek_http", "zeek.conn", "bro-dns", "http.log"), if any. */
function bySource(source: string): ZeekLog | undefined {
  const match = /^(?:(?:zeek|bro)[._-])?([a-z0-9_]+?)(?:\.log)?$/.exec(source.toLowerCase());
  return match ? LOGS[match[1]!] : undefined;
}

/** The log of a record: its _path, else its fields, else the log the artifact's source names. */
export function logOf(record: Json, source: string): ZeekLog | null {
  const path = record._path;
  if (typeof path === 'string') {
    const log = LOGS[path];
    if (log) return log;
  }
  const found = byFields(record);
  if (found && found !== otherLog) return found;
  // Only a record with a time and one of Zeek's ids is taken on the source's word.
  const zeekLike = 'ts' in record && has(record, 'uid', 'uids', 'fuid', 'id', 'fingerprint', 'id.orig_h');
  return (zeekLike ? bySource(source) : undefined) ?? found;
}

// Zeek's tab-separated logs, read without their header.
//
// A Zeek TSV file starts with #separator, #fields and #types lines that name
// its columns; a shipper that sends one line per artifact sends those header
// lines as artifacts of their own, and a data line arrives alone. So a line is
// told apart by its shape against the default field sets of Zeek's logs
// (Zeek's documentation of each log's Info record, the versions that changed
// them noted below): the number of columns first, then each column against
// its type (a time, a uid "C...", a file id "F...", an address, a port, a
// count, T/F, and a few value sets: proto, conn_state, share_type, SMB
// actions). The first layout whose every column fits names the line's log
// and its fields; a layout also takes extra trailing columns that look like a
// Community ID (what the community-id policy script appends to conn.log).
// A line no layout fits is left to the other parsers.
//
// Values: "-" is unset (the field is left out), "(empty)" an empty set or
// string, sets and vectors are comma-separated, and Zeek writes a tab,
// a comma inside a set element and any non-printable byte as \xHH.
import { canonicalIp } from '../ip.js';
import type { Json } from '../json-values.js';
import { setOwn } from '../../../lib/lookup-table.js';

type ColumnType =
  | 'string' | 'time' | 'uid' | 'uids' | 'fuid' | 'fuids' | 'addr' | 'port' | 'count' | 'interval' | 'bool'
  | 'proto' | 'connstate' | 'sharetype' | 'smbaction' | 'direction' | 'history' | 'strings' | 'intervals' | 'hashes' | 'hash';

interface Column {
  name: string;
  type: ColumnType;
}

export interface Layout {
  /** The log's name, as Zeek names its file (conn, dns, http ...). */
  log: string;
  columns: Column[];
}

const SHAPES: Record<ColumnType, (value: string) => boolean> = {
  string: () => true,
  strings: () => true,
  time: (v) => /^\d{1,10}(?:\.\d{1,9})?$/.test(v),
  uid: (v) => /^C[0-9A-Za-z]{2,24}$/.test(v),
  uids: (v) => v.split(',').every((u) => /^C[0-9A-Za-z]{2,24}$/.test(u)),
  fuid: (v) => /^F[0-9A-Za-z]{2,24}$/.test(v),
  fuids: (v) => v.split(',').every((u) => /^F[0-9A-Za-z]{2,24}$/.test(u)),
  addr: (v) => canonicalIp(v) !== null,
  port: (v) => /^\d{1,5}$/.test(v),
  count: (v) => /^\d{1,20}$/.test(v),
  interval: (v) => /^-?\d{1,20}(?:\.\d{1,9})?(?:e[+-]?\d{1,3})?$/.test(v),
  intervals: (v) => v.split(',').every((t) => /^-?\d{1,20}(?:\.\d{1,9})?$/.test(t)),
  bool: (v) => v === 'T' || v === 'F',
  proto: (v) => v === 'tcp' || v === 'udp' || v === 'icmp' || v === 'unknown_transport',
  connstate: (v) => /^(?:S0|S1|SF|REJ|S2|S3|RSTO|RSTR|RSTOS0|RSTRH|SH|SHR|OTH)$/.test(v),
  sharetype: (v) => v === 'DISK' || v === 'PIPE' || v === 'PRINT',
  smbaction: (v) => v.startsWith('SMB::'),
  direction: (v) => v === 'INBOUND' || v === 'OUTBOUND',
  // ssl.log's ssl_history: one letter per handshake message.
  history: (v) => /^[A-Za-z]{1,64}$/.test(v),
  hash: (v) => /^[0-9a-fA-F]{32,128}$/.test(v),
  hashes: (v) => v.split(',').every((h) => /^[0-9a-fA-F]{32,128}$/.test(h)),
};

const COMMUNITY_ID = /^1:[A-Za-z0-9+/]{27}=$/;

/** "ts:time uid:uid query ..." to columns; a name without a type is a string. */
function columns(spec: string): Column[] {
  return spec
    .trim()
    .split(/\s+/)
    .map((part) => {
      const colon = part.lastIndexOf(':');
      return colon < 0 ? { name: part, type: 'string' as const } : { name: part.slice(0, colon), type: part.slice(colon + 1) as ColumnType };
    });
}

const ID = 'ts:time uid:uid id.orig_h:addr id.orig_p:port id.resp_h:addr id.resp_p:port';

/** Default field sets, most common first where two logs have as many columns. */
const SPECS: [string, string][] = [
  ['conn', `${ID} proto:proto service duration:interval orig_bytes:count resp_bytes:count conn_state:connstate local_orig:bool local_resp:bool missed_bytes:count history orig_pkts:count orig_ip_bytes:count resp_pkts:count resp_ip_bytes:count tunnel_parents:uids`],
  ['dns', `${ID} proto:proto trans_id:count rtt:interval query qclass:count qclass_name qtype:count qtype_name rcode:count rcode_name AA:bool TC:bool RD:bool RA:bool Z:count answers:strings TTLs:intervals rejected:bool`],
  // http.log since Zeek 2.6 (origin); before it, the same without origin.
  ['http', `${ID} trans_depth:count method host uri referrer version user_agent origin request_body_len:count response_body_len:count status_code:count status_msg info_code:count info_msg tags:strings username password proxied:strings orig_fuids:fuids orig_filenames:strings orig_mime_types:strings resp_fuids:fuids resp_filenames:strings resp_mime_types:strings`],
  ['http', `${ID} trans_depth:count method host uri referrer version user_agent request_body_len:count response_body_len:count status_code:count status_msg info_code:count info_msg tags:strings username password proxied:strings orig_fuids:fuids orig_filenames:strings orig_mime_types:strings resp_fuids:fuids resp_filenames:strings resp_mime_types:strings`],
  // ssl.log: Zeek 3-4 (certificate file ids and names), Zeek 5 (ssl_history added), Zeek 6 (certificate fingerprints
  // instead of file ids and names); each with and without validation_status (policy/protocols/ssl/validate-certs).
  ['ssl', `${ID} version cipher curve server_name resumed:bool last_alert next_protocol established:bool cert_chain_fuids:fuids client_cert_chain_fuids:fuids subject issuer client_subject client_issuer validation_status`],
  ['ssl', `${ID} version cipher curve server_name resumed:bool last_alert next_protocol established:bool cert_chain_fuids:fuids client_cert_chain_fuids:fuids subject issuer client_subject client_issuer`],
  ['ssl', `${ID} version cipher curve server_name resumed:bool last_alert next_protocol established:bool ssl_history:history cert_chain_fuids:fuids client_cert_chain_fuids:fuids subject issuer client_subject client_issuer validation_status`],
  ['ssl', `${ID} version cipher curve server_name resumed:bool last_alert next_protocol established:bool ssl_history:history cert_chain_fuids:fuids client_cert_chain_fuids:fuids subject issuer client_subject client_issuer`],
  ['ssl', `${ID} version cipher curve server_name resumed:bool last_alert next_protocol established:bool ssl_history:history cert_chain_fps:hashes client_cert_chain_fps:hashes sni_matches_cert:bool validation_status`],
  ['ssl', `${ID} version cipher curve server_name resumed:bool last_alert next_protocol established:bool ssl_history:history cert_chain_fps:hashes client_cert_chain_fps:hashes sni_matches_cert:bool`],
  // x509.log: the certificate by file id (Zeek 3-5; host_cert and client_cert from 5) or by fingerprint (Zeek 6).
  ['x509', 'ts:time id:fuid certificate.version:count certificate.serial certificate.subject certificate.issuer certificate.not_valid_before:time certificate.not_valid_after:time certificate.key_alg certificate.sig_alg certificate.key_type certificate.key_length:count certificate.exponent certificate.curve san.dns:strings san.uri:strings san.email:strings san.ip:strings basic_constraints.ca:bool basic_constraints.path_len:count'],
  ['x509', 'ts:time id:fuid certificate.version:count certificate.serial certificate.subject certificate.issuer certificate.not_valid_before:time certificate.not_valid_after:time certificate.key_alg certificate.sig_alg certificate.key_type certificate.key_length:count certificate.exponent certificate.curve san.dns:strings san.uri:strings san.email:strings san.ip:strings basic_constraints.ca:bool basic_constraints.path_len:count host_cert:bool client_cert:bool'],
  ['x509', 'ts:time fingerprint:hash certificate.version:count certificate.serial certificate.subject certificate.issuer certificate.not_valid_before:time certificate.not_valid_after:time certificate.key_alg certificate.sig_alg certificate.key_type certificate.key_length:count certificate.exponent certificate.curve san.dns:strings san.uri:strings san.email:strings san.ip:strings basic_constraints.ca:bool basic_constraints.path_len:count host_cert:bool client_cert:bool'],
  ['ssh', `${ID} version:count auth_success:bool auth_attempts:count direction:direction client server cipher_alg mac_alg compression_alg kex_alg host_key_alg host_key`],
  // files.log: hosts and connection uids before Zeek 5, the connection's uid and id from Zeek 5.
  ['files', 'ts:time fuid:fuid tx_hosts:strings rx_hosts:strings conn_uids:uids source depth:count analyzers:strings mime_type filename duration:interval local_orig:bool is_orig:bool seen_bytes:count total_bytes:count missing_bytes:count overflow_bytes:count timedout:bool parent_fuid md5 sha1 sha256 extracted extracted_cutoff:bool extracted_size:count'],
  ['files', `ts:time fuid:fuid uid:uid id.orig_h:addr id.orig_p:port id.resp_h:addr id.resp_p:port source depth:count analyzers:strings mime_type filename duration:interval local_orig:bool is_orig:bool seen_bytes:count total_bytes:count missing_bytes:count overflow_bytes:count timedout:bool parent_fuid md5 sha1 sha256 extracted extracted_cutoff:bool extracted_size:count`],
  // notice.log: email_dest since Zeek 4 (dropped before it).
  ['notice', `${ID} fuid file_mime_type file_desc proto:proto note msg sub src:addr dst:addr p:port n:count peer_descr actions:strings email_dest:strings suppress_for:interval remote_location.country_code remote_location.region remote_location.city remote_location.latitude:interval remote_location.longitude:interval`],
  ['notice', `${ID} fuid file_mime_type file_desc proto:proto note msg sub src:addr dst:addr p:port n:count peer_descr actions:strings suppress_for:interval dropped:bool remote_location.country_code remote_location.region remote_location.city remote_location.latitude:interval remote_location.longitude:interval`],
  ['smb_mapping', `${ID} path service native_file_system share_type:sharetype`],
  ['dce_rpc', `${ID} rtt:interval named_pipe endpoint operation`],
  // weird.log: source since Zeek 3.
  ['weird', `${ID} name addl notice:bool peer source`],
  ['weird', `${ID} name addl notice:bool peer`],
  // smb_files.log: the request's data offset and lengths since Zeek 5.
  ['smb_files', `${ID} fuid:fuid action:smbaction path name size:count prev_name times.modified:time times.accessed:time times.created:time times.changed:time data_offset_req:count data_len_req:count data_len_rsp:count`],
  ['smb_files', `${ID} fuid:fuid action:smbaction path name size:count prev_name times.modified:time times.accessed:time times.created:time times.changed:time`],
  ['kerberos', `${ID} request_type client service success:bool error_msg from:time till:time cipher forwardable:bool renewable:bool client_cert_subject client_cert_fuid:fuid server_cert_subject server_cert_fuid:fuid`],
  ['ntlm', `${ID} username hostname domainname server_nb_computer_name server_dns_computer_name server_tree_name success:bool`],
  ['rdp', `${ID} cookie result security_protocol client_channels:strings keyboard_layout client_build client_name client_dig_product_id desktop_width:count desktop_height:count requested_color_depth cert_type cert_count:count cert_permanent:bool encryption_level encryption_method ssl:bool`],
  ['rdp', `${ID} cookie result security_protocol client_channels:strings keyboard_layout client_build client_name client_dig_product_id desktop_width:count desktop_height:count requested_color_depth cert_type cert_count:count cert_permanent:bool encryption_level encryption_method`],
  ['dhcp', 'ts:time uids:uids client_addr:addr server_addr:addr mac host_name client_fqdn domain requested_addr:addr assigned_addr:addr lease_time:interval client_message server_message msg_types:strings duration:interval'],
];

export const LAYOUTS: readonly Layout[] = SPECS.map(([log, spec]) => ({ log, columns: columns(spec) }));

/** Layouts by their number of columns, in SPECS order. */
const BY_WIDTH = new Map<number, Layout[]>();
for (const layout of LAYOUTS) BY_WIDTH.set(layout.columns.length, [...(BY_WIDTH.get(layout.columns.length) ?? []), layout]);
const MAX_WIDTH = Math.max(...BY_WIDTH.keys());

function fits(layout: Layout, values: readonly string[]): boolean {
  for (let i = 0; i < layout.columns.length; i++) {
    const value = values[i]!;
    if (value === '-' || value === '(empty)') continue;
    const column = layout.columns[i]!;
    if (!SHAPES[column.type](value)) return false;
  }
  return true;
}

/** The layout every column of the line fits: exactly as wide, else narrower with Community ID columns trailing. */
function layoutOf(values: readonly string[]): { layout: Layout; communityId?: string } | null {
  for (const layout of BY_WIDTH.get(values.length) ?? []) if (fits(layout, values)) return { layout };
  const communityIds = values.filter((v) => COMMUNITY_ID.test(v));
  if (communityIds.length !== 1 || !COMMUNITY_ID.test(values[values.length - 1]!)) return null;
  for (const layout of BY_WIDTH.get(values.length - 1) ?? []) if (fits(layout, values)) return { layout, communityId: communityIds[0] };
  return null;
}

/** \xHH escapes undone. */
function unescape(value: string): string {
  if (!value.includes('\\x')) return value;
  return value.replace(/\\x([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

const NUMERIC = new Set<ColumnType>(['time', 'port', 'count', 'interval']);
const LISTS = new Set<ColumnType>(['uids', 'fuids', 'strings', 'intervals', 'hashes']);

function convert(type: ColumnType, value: string): unknown {
  if (NUMERIC.has(type)) return Number(value);
  if (type === 'bool') return value === 'T';
  if (LISTS.has(type)) {
    if (value === '(empty)') return [];
    const items = value.split(',').map(unescape);
    return type === 'intervals' ? items.map(Number) : items;
  }
  return value === '(empty)' ? undefined : unescape(value);
}

/** Whether a line looks like a Zeek TSV data line: an epoch time with its fraction, then a tab. */
export function looksLikeZeekTsv(raw: string): boolean {
  return /^\d{9,10}\.\d{1,9}\t/.test(raw);
}

/** The record a header-less TSV line holds, as Zeek's JSON writer would write it, with its log; null when no layout fits. */
export function readTsv(raw: string): { log: string; record: Json } | null {
  const values = raw.replace(/\r?\n$/, '').split('\t', MAX_WIDTH + 2);
  const found = layoutOf(values);
  if (!found) return null;
  const record: Json = {};
  found.layout.columns.forEach((column, i) => {
    const value = values[i]!;
    if (value === '-') return;
    const converted = convert(column.type, value);
    if (converted !== undefined) setOwn(record, column.name, converted);
  });
  if (found.communityId) record.community_id = found.communityId;
  return { log: found.layout.log, record };
}

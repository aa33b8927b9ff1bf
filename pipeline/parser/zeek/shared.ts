// What every Zeek log's mapping shares: the time, the connection's four-tuple
// (id.orig_h/p, id.resp_h/p: orig is the source, resp the destination, as
// Elastic's zeek package maps them), the connection's uid, and Zeek's own
// fields kept under zeek.<log>.<field> with the names Zeek gives them.
import { canonicalIp } from '../ip.js';
import { count, text, type Json } from '../json-values.js';
import { isoString } from '../../../lib/iso-time.js';
import type { EventFields, FieldValue } from '../types.js';
import { setOwn } from '../../../lib/lookup-table.js';

/**
 * ISO time of a Zeek time value: epoch seconds with microseconds (the
 * default), or an ISO 8601 string (JSON::TS_ISO8601); milliseconds truncated.
 */
export function zeekTime(ts: unknown): string | undefined {
  let ms = NaN;
  // Through whole microseconds first, so 1.001 s is not 1000.9999 ms.
  if (typeof ts === 'number') ms = Math.floor(Math.round(ts * 1e6) / 1000);
  else if (typeof ts === 'string') ms = Date.parse(ts);
  return Number.isFinite(ms) && ms > 0 ? isoString(ms) : undefined;
}

/** Zeek intervals are seconds; ECS durations nanoseconds. */
export function nanoseconds(seconds: unknown): number | undefined {
  const value = count(seconds);
  return value === undefined ? undefined : Math.round(value * 1e9);
}

/** Writes an address field, or the .address field when the value is not an address (a host name). */
export function setAddress(fields: EventFields, ipField: string, addressField: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') return;
  const ip = canonicalIp(value);
  if (ip) fields[ipField] = ip;
  else fields[addressField] = value;
}

/** The connection's four-tuple, transport and uid: the fields nearly every Zeek log starts with. */
export function addConnectionId(fields: EventFields, record: Json): void {
  setAddress(fields, 'source.ip', 'source.address', record['id.orig_h']);
  setAddress(fields, 'destination.ip', 'destination.address', record['id.resp_h']);
  const sourcePort = count(record['id.orig_p']);
  const destinationPort = count(record['id.resp_p']);
  if (sourcePort !== undefined) fields['source.port'] = sourcePort;
  if (destinationPort !== undefined) fields['destination.port'] = destinationPort;
  const proto = text(record.proto);
  if (proto && proto !== 'unknown_transport') fields['network.transport'] = proto.toLowerCase();
  const communityId = text(record.community_id);
  if (communityId) fields['network.community_id'] = communityId;
  const uid = text(record.uid);
  // uid names the connection, shared by every log line about it (conn.log, dns.log, http.log ...).
  if (uid) {
    fields['zeek.session_id'] = uid;
    fields['event.id'] = uid;
  }
}

/** Keys addConnectionId reads, and the metadata some shippers add (_path, _write_ts, _system_name). */
const CONNECTION_KEYS = new Set(['ts', 'uid', 'id.orig_h', 'id.orig_p', 'id.resp_h', 'id.resp_p', 'proto', 'community_id', '_path', '_write_ts', '_system_name', '_node', 'id.vlan', 'id.vlan_inner']);

function scalar(value: unknown): FieldValue | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const items = value.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number');
    return items.length > 0 ? items : undefined;
  }
  return undefined;
}

/**
 * Zeek's own fields the mapping did not turn into ECS ones, under
 * zeek.<dataset>.<field> as Zeek names them: what a search or a Sigma rule
 * naming a Zeek field reads (zeek.dce_rpc.operation, zeek.smb_files.path).
 */
export function keepZeekFields(fields: EventFields, record: Json, dataset: string, mapped: ReadonlySet<string>): void {
  for (const key of Object.keys(record)) {
    if (CONNECTION_KEYS.has(key) || mapped.has(key)) continue;
    const value = scalar(record[key]);
    if (value !== undefined) setOwn(fields, keptName(dataset, key), value);
  }
}

/**
 * "zeek.<dataset>.<field>", made once per name: a name built per event is a new string V8 must hash before each
 * store, and a log's lines repeat the same names. Bounded: the names come from the input.
 */
const KEPT_NAMES = new Map<string, Map<string, string>>();

function keptName(dataset: string, key: string): string {
  let names = KEPT_NAMES.get(dataset);
  if (!names) KEPT_NAMES.set(dataset, (names = new Map()));
  let name = names.get(key);
  if (name === undefined) {
    name = `zeek.${dataset}.${key}`;
    if (names.size < 1000) names.set(key, name);
  }
  return name;
}

/** The start of every Zeek event: time, module, dataset, kind. */
export function baseFields(timestamp: string, dataset: string, kind: 'event' | 'alert' = 'event'): EventFields {
  return { '@timestamp': timestamp, 'event.kind': kind, 'event.module': 'zeek', 'event.dataset': `zeek.${dataset}` };
}

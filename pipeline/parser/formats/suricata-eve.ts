// Suricata EVE JSON (one object per line) to flat ECS fields. Categorisation
// follows Filebeat's suricata module; dns covers the v1, v2 and v3 layouts.
import { canonicalIp } from '../ip.js';
import { count, isObject, text, type Json } from '../json-values.js';
import type { EventFields, FormatParser } from '../types.js';
import { addAlert } from './suricata/alert.js';
import { addCategorisation } from './suricata/categorisation.js';
import { addDns } from './suricata/dns.js';
import { addFlow, addFlowState, addNetflow } from './suricata/flow.js';
import { addHttp } from './suricata/http.js';
import { addAnomaly, addFileinfo, addSmtp, addSsh } from './suricata/other.js';
import { isoTime } from './suricata/shared.js';
import { addTls } from './suricata/tls.js';

// Field names are written out whole here and in suricata/: a name built per
// event (`${prefix}.ip`) is a new string V8 must look up before every store.

// ---------------------------------------------------------------------------
// Parts every record type may carry.

function setIp(fields: EventFields, ipField: string, addressField: string, value: unknown): void {
  if (typeof value !== 'string') return;
  const ip = canonicalIp(value);
  // Not an address after all: ECS keeps such a value in .address.
  if (ip) fields[ipField] = ip;
  else if (value !== '') fields[addressField] = value;
}

function addEndpoints(fields: EventFields, record: Json): void {
  setIp(fields, 'source.ip', 'source.address', record.src_ip);
  setIp(fields, 'destination.ip', 'destination.address', record.dest_ip);
  const sourcePort = count(record.src_port);
  const destinationPort = count(record.dest_port);
  if (sourcePort !== undefined) fields['source.port'] = sourcePort;
  if (destinationPort !== undefined) fields['destination.port'] = destinationPort;
  const proto = text(record.proto);
  if (proto) fields['network.transport'] = proto.toLowerCase();
  const communityId = text(record.community_id);
  if (communityId) fields['network.community_id'] = communityId;
  const iface = text(record.in_iface);
  if (iface) fields['observer.ingress.interface.name'] = iface;
  const sensor = text(record.host);
  if (sensor) fields['observer.hostname'] = sensor;
  // flow_id ties the records of one flow together (alert, http, fileinfo, flow).
  if (typeof record.flow_id === 'number') fields['suricata.eve.flow_id'] = String(record.flow_id);
}

// ---------------------------------------------------------------------------
// Reading the line

/**
 * Whether a parsed object is an EVE record, complete or not: the record type
 * with a time, or flow identity (flow_id, addresses, interface) with either.
 */
function claimsEve(record: Json): boolean {
  const hasType = 'event_type' in record;
  const hasTime = 'timestamp' in record;
  if ('flow_id' in record || 'src_ip' in record || 'dest_ip' in record || 'in_iface' in record) return hasType || hasTime;
  return hasType && hasTime;
}

/** The EVE record of `raw`, null when the line is some other JSON or none; throws when it is EVE but broken. */
function readRecord(raw: string): Json | null {
  const start = raw.trimStart();
  if (start.charCodeAt(0) !== 0x7b) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    if (raw.includes('"event_type"') || start.startsWith('{"timestamp"')) throw new Error(`broken EVE JSON: ${(err as Error).message}`);
    return null;
  }
  return isObject(value) && claimsEve(value) ? value : null;
}

export const suricataEve: FormatParser = {
  name: 'suricata-eve',
  detect: (raw) => raw.trimStart().charCodeAt(0) === 0x7b && raw.includes('"event_type"'),
  parse(raw) {
    const record = readRecord(raw);
    if (!record) return null;
    const eventType = text(record.event_type);
    if (!eventType) throw new Error('EVE record without an event_type');
    const timestamp = isoTime(record.timestamp);
    if (!timestamp) throw new Error(`EVE record with a bad timestamp: ${JSON.stringify(record.timestamp) ?? 'none'}`);

    const fields: EventFields = { '@timestamp': timestamp, 'event.module': 'suricata', 'event.dataset': 'suricata.eve', 'suricata.eve.event_type': eventType };
    addCategorisation(fields, eventType, record);
    addEndpoints(fields, record);
    if (isObject(record.alert)) addAlert(fields, record.alert);
    if (isObject(record.flow)) {
      addFlow(fields, record.flow);
      if (eventType === 'flow') addFlowState(fields, record.flow);
    }
    if (isObject(record.netflow)) addNetflow(fields, record.netflow);
    if (isObject(record.http)) addHttp(fields, record.http, eventType);
    if (isObject(record.tls)) addTls(fields, record.tls);
    if (isObject(record.dns)) addDns(fields, record.dns);
    if (isObject(record.fileinfo)) addFileinfo(fields, record.fileinfo);
    if (isObject(record.ssh)) addSsh(fields, record.ssh);
    if (isObject(record.smtp)) addSmtp(fields, record.smtp, record.email);
    if (isObject(record.anomaly)) addAnomaly(fields, record.anomaly);
    return fields;
  },
};

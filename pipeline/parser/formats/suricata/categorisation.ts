// event.kind, event.category, event.type and network.protocol of an EVE record
// by its event_type, as Filebeat's suricata module categorises them.
import { text, type Json } from '../../json-values.js';
import type { EventFields } from '../../types.js';

interface Categorisation {
  kind?: string;
  category: readonly string[];
  type?: readonly string[];
  /** network.protocol when the record has no usable app_proto. */
  protocol?: string;
}

const NETWORK = ['network'];
const WEB = ['network', 'web'];
const protocolEvent = (protocol: string): Categorisation => ({ category: NETWORK, type: ['protocol'], protocol });

const APP_LAYER_EVENTS = ['dns', 'tls', 'ssh', 'smtp', 'ftp', 'smb', 'krb5', 'ikev2', 'mqtt', 'snmp', 'tftp', 'rdp', 'rfb', 'dhcp', 'sip', 'nfs', 'dcerpc', 'modbus', 'dnp3', 'quic', 'pgsql', 'ldap', 'bittorrent-dht', 'websocket'];

/** A Map, not an object literal: event_type is data, and "constructor" must not find Object's. */
const CATEGORISATION = new Map<string, Categorisation>([
  ...APP_LAYER_EVENTS.map((protocol): [string, Categorisation] => [protocol, protocolEvent(protocol)]),
  ['ftp_data', protocolEvent('ftp')],
  ['alert', { kind: 'alert', category: ['network', 'intrusion_detection'] }],
  // Engine counters are measurements, not network activity (ECS event.kind "metric").
  ['stats', { kind: 'metric', category: [] }],
  ['flow', { category: NETWORK, type: ['connection'] }],
  ['netflow', { category: NETWORK, type: ['connection'] }],
  ['drop', { category: NETWORK, type: ['connection', 'denied'] }],
  ['fileinfo', { category: NETWORK, type: ['info'] }],
  ['anomaly', { category: NETWORK, type: ['info'] }],
  ['http', { category: WEB, type: ['access', 'protocol'], protocol: 'http' }],
  ['http2', { category: WEB, type: ['access', 'protocol'], protocol: 'http2' }],
]);

/** app_proto values that name no protocol. */
const NO_PROTOCOL = new Set(['failed', 'unknown', 'template', 'template-rust']);

function networkProtocol(record: Json, categorisation: Categorisation | undefined): string | undefined {
  const appProto = text(record.app_proto)?.toLowerCase();
  if (appProto && !NO_PROTOCOL.has(appProto)) return appProto === 'ftp-data' ? 'ftp' : appProto;
  return categorisation?.protocol;
}

export function addCategorisation(fields: EventFields, eventType: string, record: Json): void {
  const known = CATEGORISATION.get(eventType);
  const protocol = networkProtocol(record, known);
  fields['event.kind'] = known?.kind ?? 'event';
  const category = known ? known.category : NETWORK;
  if (category.length > 0) fields['event.category'] = category.slice();
  // An unknown event type is an app-layer record when it names a protocol, else plain information.
  const type = known ? (known.type?.slice() ?? []) : [protocol ? 'protocol' : 'info'];
  if (type.length > 0) fields['event.type'] = type;
  if (protocol) fields['network.protocol'] = protocol;
}

// Any JSON object: nested keys flattened to dotted names, so an event that
// already speaks ECS ({"source": {"ip": ...}} or {"source.ip": ...}) keeps its
// fields, and a few common non-ECS spellings are mapped (src_ip, dst_port, user...).
import { canonicalIp } from '../ip.js';
import type { EventFields, FieldValue, FormatParser } from '../types.js';
import { lookupTable, setOwn } from '../../../lib/lookup-table.js';

/**
 * Common field spellings of hand-rolled JSON and key=value logs (firewalls,
 * appliances), and their ECS names. Keys that name an address in some logs
 * and something else in others (source, client, rhost) map only when the
 * value is an address.
 */
const ALIASES = lookupTable<string>({
  src_ip: 'source.ip',
  src: 'source.ip',
  SRC: 'source.ip',
  srcip: 'source.ip',
  source_ip: 'source.ip',
  source: 'source.ip',
  client_ip: 'source.ip',
  client: 'source.ip',
  clientip: 'source.ip',
  rhost: 'source.ip',
  remote_addr: 'source.ip',
  remote_ip: 'source.ip',
  src_port: 'source.port',
  srcport: 'source.port',
  source_port: 'source.port',
  sport: 'source.port',
  spt: 'source.port',
  SPT: 'source.port',
  dst_ip: 'destination.ip',
  dest_ip: 'destination.ip',
  dst: 'destination.ip',
  DST: 'destination.ip',
  dstip: 'destination.ip',
  destination_ip: 'destination.ip',
  dst_port: 'destination.port',
  dest_port: 'destination.port',
  dstport: 'destination.port',
  destination_port: 'destination.port',
  dport: 'destination.port',
  dpt: 'destination.port',
  DPT: 'destination.port',
  proto: 'network.transport',
  PROTO: 'network.transport',
  protocol: 'network.transport',
  user: 'user.name',
  username: 'user.name',
  user_name: 'user.name',
  hostname: 'host.hostname',
  host: 'host.hostname',
  action: 'event.action',
  outcome: 'event.outcome',
  msg: 'message',
  timestamp: '@timestamp',
  time: '@timestamp',
  ts: '@timestamp',
});

const NUMERIC = new Set(['source.port', 'destination.port', 'process.pid', 'http.response.status_code']);
const IPS = new Set(['source.ip', 'destination.ip', 'client.ip', 'server.ip', 'host.ip']);

function toTimestamp(value: unknown): string | undefined {
  if (typeof value === 'number') return new Date(value > 1e12 ? value : value * 1000).toISOString();
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function scalar(value: unknown): FieldValue | undefined {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const items = value.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number');
    return items.length ? items : undefined;
  }
  return undefined;
}

/** Objects nested deeper than this are not flattened: no log field lives that deep, and recursion must stay bounded. */
const MAX_FLATTEN_DEPTH = 16;

/** Writes `value`'s scalar fields into `fields` under dotted names (nested objects to MAX_FLATTEN_DEPTH). */
export function flattenInto(fields: EventFields, value: Record<string, unknown>, prefix: string, depth = 1): void {
  for (const [key, v] of Object.entries(value)) {
    const name = prefix + key;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      if (depth < MAX_FLATTEN_DEPTH) flattenInto(fields, v as Record<string, unknown>, `${name}.`, depth + 1);
      continue;
    }
    const s = scalar(v);
    if (s !== undefined) setOwn(fields, name, s);
  }
}

/** An alias that applies to this value: address aliases only for an address. */
function aliasFor(key: string, value: FieldValue, raw: EventFields): string | undefined {
  const alias = ALIASES[key];
  if (alias === undefined || alias in raw) return undefined;
  if (IPS.has(alias) && (typeof value !== 'string' || canonicalIp(value) === null)) return undefined;
  return alias;
}

/** What a firewall's or proxy's action word says: allow/accept/permit/pass or deny/drop/reject/block. */
const ACTION_VERDICTS = lookupTable<{ outcome: 'success' | 'failure'; type: 'allowed' | 'denied' }>({
  allow: { outcome: 'success', type: 'allowed' },
  allowed: { outcome: 'success', type: 'allowed' },
  accept: { outcome: 'success', type: 'allowed' },
  accepted: { outcome: 'success', type: 'allowed' },
  permit: { outcome: 'success', type: 'allowed' },
  permitted: { outcome: 'success', type: 'allowed' },
  pass: { outcome: 'success', type: 'allowed' },
  deny: { outcome: 'failure', type: 'denied' },
  denied: { outcome: 'failure', type: 'denied' },
  drop: { outcome: 'failure', type: 'denied' },
  dropped: { outcome: 'failure', type: 'denied' },
  reject: { outcome: 'failure', type: 'denied' },
  rejected: { outcome: 'failure', type: 'denied' },
  block: { outcome: 'failure', type: 'denied' },
  blocked: { outcome: 'failure', type: 'denied' },
});

/** The outcome and event.type an action word stands for, if it is one of the access verdicts. */
export function verdictOfAction(action: string): { outcome: 'success' | 'failure'; type: 'allowed' | 'denied' } | undefined {
  return ACTION_VERDICTS[action.toLowerCase()];
}

/** Maps aliases to ECS names and normalizes well-known fields. */
export function normalizeEcs(raw: EventFields): EventFields {
  const fields: EventFields = {};
  for (const [key, value] of Object.entries(raw)) {
    const name = aliasFor(key, value, raw) ?? key;
    if (name === '@timestamp') {
      const ts = toTimestamp(value);
      if (ts) fields[name] = ts;
    } else if (NUMERIC.has(name) && typeof value === 'string' && /^\d+$/.test(value)) {
      fields[name] = Number(value);
    } else if (IPS.has(name) && typeof value === 'string') {
      fields[name] = canonicalIp(value) ?? value;
    } else if (name === 'network.transport' && typeof value === 'string') {
      fields[name] = value.toLowerCase();
    } else {
      setOwn(fields, name, value);
    }
  }
  return fields;
}

export const genericJson: FormatParser = {
  name: 'json',
  detect: (raw) => raw.trimStart().startsWith('{'),
  parse(raw) {
    if (!raw.trimStart().startsWith('{')) return null;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new Error(`not valid JSON: ${(err as Error).message}`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
    const flat: EventFields = {};
    flattenInto(flat, value as Record<string, unknown>, '');
    const fields = normalizeEcs(flat);
    fields['event.kind'] ??= 'event';
    return fields;
  },
};

// The stored events that may name some of a set of indicators, for the
// retro-hunt: a coarse test in SQL (equal values, CIDRs, domains with their
// parents) over the events of the last days; the caller confirms each event
// with the same index that matches at ingest.
import { toIsoTimestamp, type Store } from '../client.js';
import { queryRows, SqlParams } from '../sql.js';
import { eventFieldValues, type StoredEvent } from './events.js';

export type { StoredEvent };

export interface RetroHuntSet {
  addresses: string[];
  cidrs: string[];
  domains: string[];
  urls: string[];
  /** Hashes and email addresses: compared lower-case. */
  lowered: string[];
}

export interface RetroHuntFields {
  address: readonly string[];
  domain: readonly string[];
  url: readonly string[];
  hash: readonly string[];
  email: readonly string[];
}

function concat(fields: readonly string[], params: SqlParams): string {
  return fields.length === 1 ? eventFieldValues(fields[0]!, params) : `arrayConcat(${fields.map((f) => eventFieldValues(f, params)).join(', ')})`;
}

/** Events of the last `days` days of one organization that may name an indicator of the set, oldest first, at most `limit`. */
export async function retroHuntEvents(store: Store, orgId: string, days: number, set: RetroHuntSet, fields: RetroHuntFields, limit: number): Promise<StoredEvent[]> {
  const params = new SqlParams();
  const tests: string[] = [];
  if (set.addresses.length || set.cidrs.length) {
    const ips = concat(fields.address, params);
    if (set.addresses.length) tests.push(`hasAny(${ips}, ${params.add(set.addresses, 'Array(String)')})`);
    if (set.cidrs.length) {
      tests.push(`arrayExists(ip -> if(isIPv4String(ip) OR isIPv6String(ip), arrayExists(c -> isIPAddressInRange(ip, c), ${params.add(set.cidrs, 'Array(String)')}), 0), ${ips})`);
    }
  }
  if (set.domains.length) {
    // Each domain and its parents (a.b.example: a.b.example, b.example), lower-case, without a trailing dot.
    const suffixes = `arrayMap(i -> arrayStringConcat(arraySlice(splitByChar('.', trimRight(lower(d), '.')), i), '.'), range(1, greatest(2, length(splitByChar('.', trimRight(d, '.'))))))`;
    tests.push(`arrayExists(d -> hasAny(${suffixes}, ${params.add(set.domains, 'Array(String)')}), ${concat(fields.domain, params)})`);
  }
  if (set.urls.length) tests.push(`hasAny(${concat(fields.url, params)}, ${params.add(set.urls, 'Array(String)')})`);
  if (set.lowered.length) tests.push(`hasAny(arrayMap(v -> lower(v), ${concat([...fields.hash, ...fields.email], params)}), ${params.add(set.lowered, 'Array(String)')})`);
  if (tests.length === 0) return [];
  const rows = (await queryRows(
    store,
    `SELECT toString(artifact_id) AS artifact_id, org_id, source, timestamp, event_time, parser, fields, created_at FROM events
     WHERE org_id = ${params.add(orgId, 'String')} AND timestamp >= now64(3) - toIntervalDay(${params.add(days, 'UInt32')})
       AND (${tests.join(' OR ')})
     ORDER BY timestamp LIMIT ${params.add(limit, 'UInt32')}`,
    params,
  )) as StoredEvent[];
  return rows.map((r) => ({ ...r, timestamp: toIsoTimestamp(r.timestamp), event_time: r.event_time ? toIsoTimestamp(r.event_time) : null, created_at: toIsoTimestamp(r.created_at) }));
}

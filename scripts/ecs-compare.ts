// How the fidelity scripts read and compare ECS documents: nested documents
// flattened to dotted names, values normalised so that equal meanings
// compare equal (canonical IPs, arrays as sets, numbers as their text).
import { canonicalIp } from '../pipeline/parser/ip.js';

export type Json = Record<string, unknown>;

const IP_FIELDS = new Set(['source.ip', 'destination.ip', 'dns.resolved_ip']);

/** A nested document as dotted names ({"source": {"ip": x}} and {"source.ip": x} alike); arrays stay values. */
export function flatten(value: Json, prefix = '', out: Json = {}): Json {
  for (const [key, v] of Object.entries(value)) {
    const name = prefix + key;
    if (v && typeof v === 'object' && !Array.isArray(v)) flatten(v as Json, `${name}.`, out);
    else out[name] = v;
  }
  return out;
}

/**
 * A field's value as comparable text: @timestamp as ISO 8601 UTC, IPs
 * canonical, arrays as a sorted set joined by "|", anything else String()
 * (so the number 443 and the string "443" are equal).
 */
export function normalize(field: string, value: unknown): string {
  if (field === '@timestamp') {
    const ms = typeof value === 'number' ? value : Date.parse(String(value));
    return Number.isNaN(ms) ? String(value) : new Date(ms).toISOString();
  }
  const one = (v: unknown) => (IP_FIELDS.has(field) ? (canonicalIp(String(v)) ?? String(v)) : String(v));
  if (Array.isArray(value)) return [...new Set(value.map(one))].sort().join('|');
  return one(value);
}

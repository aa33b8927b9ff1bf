// The indicators of every organization in memory, for matching at ingest:
// exact maps for addresses, domains, URLs, hashes and email addresses (a
// domain also matches its subdomains: each parent of an event's domain is
// looked up), and CIDRs in one map per prefix length, so an address costs one
// lookup per prefix length in use. An organization without indicators of a
// kind costs nothing for that kind. Expiry and decay are judged at the hit,
// from the claims kept with each entry, so an expired indicator stops
// matching without a reload.
import ipaddr from 'ipaddr.js';
import type { EnrichedEvent } from '../topics/index.js';
import { isLive, scoreAt, type DecayInputs } from './decay.js';
import { ENTITY_CLASSES, INTEL_FIELDS, type FieldClass } from './fields.js';
import { canonicalUrl } from './indicator.js';
import { lookupTable } from '../lib/lookup-table.js';

export interface IndexedClaim extends DecayInputs {
  subscriptionId: string;
  labels: string[];
  /** Row version, so an older change read late does not undo a newer one. */
  version: bigint;
}

export interface IndexedEntry {
  id: string;
  orgId: string;
  type: string;
  value: string;
  claims: Map<string, IndexedClaim>;
}

export interface LiveClaim {
  subscriptionId: string;
  confidence: number;
  score: number;
  labels: string[];
}

/** What matching reads of an event: its entities, its URL and hash fields, and its time. */
export type IntelEvent = Pick<EnrichedEvent, 'artifact_id' | 'org_id' | 'source' | 'timestamp' | 'fields' | 'entities'>;

export interface IntelHit {
  event: IntelEvent;
  entry: IndexedEntry;
  /** The event field and the value in it that matched. */
  field: string;
  observed: string;
  claims: LiveClaim[];
}

const CLASS_OF_TYPE = lookupTable<FieldClass | 'v4cidr' | 'v6cidr'>({
  'ipv4-addr': 'address',
  'ipv6-addr': 'address',
  'ipv4-cidr': 'v4cidr',
  'ipv6-cidr': 'v6cidr',
  domain: 'domain',
  url: 'url',
  md5: 'hash',
  sha1: 'hash',
  sha256: 'hash',
  email: 'email',
});

/** Dotted decimal to a 32-bit number, or -1 (canonical IPv4 only: what the parser writes). */
function ipv4Number(text: string): number {
  let value = 0;
  let part = 0;
  let parts = 0;
  let digits = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 46;
    if (c === 46) {
      if (digits === 0 || part > 255) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      parts++;
    } else {
      const d = c - 48;
      if (d < 0 || d > 9 || ++digits > 3) return -1;
      part = part * 10 + d;
    }
  }
  return parts === 4 ? value : -1;
}

/** Network masks by prefix length, as unsigned 32-bit numbers. */
const V4_MASKS = Array.from({ length: 33 }, (_, bits) => (bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0));

function maskV4(address: number, bits: number): number {
  return (address & V4_MASKS[bits]!) >>> 0;
}

function v6Bits(text: string): bigint | null {
  try {
    const bytes = ipaddr.IPv6.parse(text).toByteArray();
    return bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
  } catch {
    return null;
  }
}

function maskV6(address: bigint, bits: number): bigint {
  return bits === 0 ? 0n : (address >> BigInt(128 - bits)) << BigInt(128 - bits);
}

/** Kinds read from fields rather than from the event's entities. */
const FIELD_CLASSES = ['url', 'hash'] as const;

class OrgIndex {
  readonly exact: Record<FieldClass, Map<string, IndexedEntry>> = { address: new Map(), domain: new Map(), url: new Map(), hash: new Map(), email: new Map() };
  readonly v4 = new Map<number, Map<number, IndexedEntry>>();
  readonly v6 = new Map<number, Map<bigint, IndexedEntry>>();
  /** Prefix lengths in use, longest first, so the most specific network is found first. */
  v4Lengths: number[] = [];
  v6Lengths: number[] = [];
  size = 0;
  /** Field name, kind, field name, kind...: the URL and hash fields worth reading for this organization (none while it has no such indicators). */
  fieldReads: string[] = [];

  private updateFieldReads(): void {
    this.fieldReads = FIELD_CLASSES.flatMap((kind) => (this.exact[kind].size > 0 ? INTEL_FIELDS[kind].flatMap((field) => [field, kind]) : []));
  }

  place(entry: IndexedEntry, add: boolean): void {
    const kind = CLASS_OF_TYPE[entry.type];
    if (!kind) return;
    if (kind === 'v4cidr' || kind === 'v6cidr') {
      const [network, bitsText] = entry.value.split('/');
      const bits = Number(bitsText);
      if (kind === 'v4cidr') {
        const key = ipv4Number(network!);
        if (key < 0) return;
        const byLength = this.v4.get(bits) ?? new Map<number, IndexedEntry>();
        if (add) byLength.set(key, entry);
        else byLength.delete(key);
        this.v4.set(bits, byLength);
        this.v4Lengths = [...this.v4.entries()].filter(([, m]) => m.size > 0).map(([b]) => b).sort((a, b) => b - a);
      } else {
        const key = v6Bits(network!);
        if (key === null) return;
        const byLength = this.v6.get(bits) ?? new Map<bigint, IndexedEntry>();
        if (add) byLength.set(key, entry);
        else byLength.delete(key);
        this.v6.set(bits, byLength);
        this.v6Lengths = [...this.v6.entries()].filter(([, m]) => m.size > 0).map(([b]) => b).sort((a, b) => b - a);
      }
    } else {
      const before = this.exact[kind].size;
      if (add) this.exact[kind].set(entry.value, entry);
      else this.exact[kind].delete(entry.value);
      if ((before === 0) !== (this.exact[kind].size === 0)) this.updateFieldReads();
    }
  }

  lookupAddress(value: string): IndexedEntry | undefined {
    const exact = this.exact.address.get(value);
    if (exact) return exact;
    if (this.v4Lengths.length > 0 && !value.includes(':')) {
      const address = ipv4Number(value);
      if (address >= 0) {
        for (const bits of this.v4Lengths) {
          const found = this.v4.get(bits)!.get(maskV4(address, bits));
          if (found) return found;
        }
      }
    }
    if (this.v6Lengths.length > 0 && value.includes(':')) {
      const address = v6Bits(value);
      if (address !== null) {
        for (const bits of this.v6Lengths) {
          const found = this.v6.get(bits)!.get(maskV6(address, bits));
          if (found) return found;
        }
      }
    }
    return undefined;
  }

  /**
   * The domain or its nearest listed parent (a.b.evil.example, then
   * b.evil.example, then evil.example). Domains come only from the event's
   * entities, which the enricher's canonicalEntity wrote lower-case without a
   * trailing dot, at ingest and in the retro-hunt alike.
   */
  lookupDomain(domain: string): IndexedEntry | undefined {
    const domains = this.exact.domain;
    for (let at = 0; at >= 0 && at < domain.length; ) {
      const found = domains.get(at === 0 ? domain : domain.slice(at));
      if (found) return found;
      const dot = domain.indexOf('.', at);
      // A top-level domain alone is never looked up.
      if (dot < 0 || domain.indexOf('.', dot + 1) < 0) return undefined;
      at = dot + 1;
    }
    return undefined;
  }

  lookup(kind: FieldClass, value: string): IndexedEntry | undefined {
    switch (kind) {
      case 'address':
        return this.lookupAddress(value);
      case 'domain':
        return this.lookupDomain(value);
      case 'url': {
        const url = canonicalUrl(value);
        return url ? this.exact.url.get(url) : undefined;
      }
      default:
        return this.exact[kind].get(value.toLowerCase());
    }
  }

  hasAny(kind: FieldClass): boolean {
    return kind === 'address' ? this.exact.address.size > 0 || this.v4Lengths.length > 0 || this.v6Lengths.length > 0 : this.exact[kind].size > 0;
  }
}


export interface ClaimInput extends IndexedClaim {
  orgId: string;
  indicatorId: string;
  type: string;
  value: string;
}

export class IntelIndex {
  private readonly orgs = new Map<string, OrgIndex>();
  private readonly entries = new Map<string, IndexedEntry>();

  /** Number of indicators held. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Adds or replaces one feed's claim on an indicator, unless this version or
   * a newer one is already held; says whether it changed anything.
   */
  put(input: ClaimInput): boolean {
    const key = `${input.orgId}|${input.indicatorId}`;
    let entry = this.entries.get(key);
    const held = entry?.claims.get(input.subscriptionId);
    if (held && held.version >= input.version) return false;
    if (!entry) {
      entry = { id: input.indicatorId, orgId: input.orgId, type: input.type, value: input.value, claims: new Map() };
      this.entries.set(key, entry);
      const org = this.orgs.get(input.orgId) ?? new OrgIndex();
      this.orgs.set(input.orgId, org);
      org.place(entry, true);
      org.size++;
    }
    const { orgId: _o, indicatorId: _i, type: _t, value: _v, ...claim } = input;
    entry.claims.set(input.subscriptionId, claim);
    return true;
  }

  /** Every claim held, as put() takes them: what a copy of the index is loaded from (an analysis worker's, threatintel/worker-matching.ts). */
  claims(): ClaimInput[] {
    const all: ClaimInput[] = [];
    for (const entry of this.entries.values()) {
      for (const claim of entry.claims.values()) all.push({ orgId: entry.orgId, indicatorId: entry.id, type: entry.type, value: entry.value, ...claim });
    }
    return all;
  }

  /** Drops one feed's claim (unless a newer version of it is held); the indicator goes when no feed claims it. Says whether it changed anything. */
  remove(orgId: string, indicatorId: string, subscriptionId: string, version: bigint): boolean {
    const key = `${orgId}|${indicatorId}`;
    const entry = this.entries.get(key);
    const held = entry?.claims.get(subscriptionId);
    if (!entry || !held || held.version > version) return false;
    entry.claims.delete(subscriptionId);
    if (entry.claims.size > 0) return true;
    this.entries.delete(key);
    const org = this.orgs.get(orgId)!;
    org.place(entry, false);
    if (--org.size === 0) this.orgs.delete(orgId);
    return true;
  }

  /**
   * Every live indicator the events name: one hit per event and indicator,
   * with the feeds whose claims are live now. Addresses, domains and email
   * addresses come from the event's entities (canonical already), URLs and
   * hashes from their fields; a kind the organization has no indicators of
   * is skipped.
   */
  match(events: IntelEvent[], now = Date.now()): IntelHit[] {
    const hits: IntelHit[] = [];
    if (this.orgs.size === 0) return hits;
    for (const event of events) {
      const org = this.orgs.get(event.org_id);
      if (!org) continue;
      const first = hits.length;
      for (const entity of event.entities) {
        const kind = ENTITY_CLASSES[entity.type];
        if (kind && org.hasAny(kind)) record(hits, first, event, org.lookup(kind, entity.value), entity.role, entity.value, now);
      }
      const fields = event.fields;
      const read = org.fieldReads;
      for (let i = 0; i < read.length; i += 2) {
        const raw = fields[read[i] as string];
        if (raw === undefined) continue;
        const field = read[i] as string;
        const kind = read[i + 1] as FieldClass;
        if (typeof raw === 'string') record(hits, first, event, org.lookup(kind, raw), field, raw, now);
        else if (Array.isArray(raw)) for (const item of raw) if (typeof item === 'string') record(hits, first, event, org.lookup(kind, item), field, item, now);
      }
    }
    return hits;
  }
}

/** Adds a hit unless the entry is not live or this event (its hits from `first` on) already hit it. A plain function: this runs per event. */
function record(hits: IntelHit[], first: number, event: IntelEvent, entry: IndexedEntry | undefined, field: string, observed: string, now: number): void {
  if (!entry) return;
  for (let i = first; i < hits.length; i++) if (hits[i]!.entry === entry) return;
  const claims = liveClaims(entry, now);
  if (claims.length > 0) hits.push({ event, entry, field, observed, claims });
}

function liveClaims(entry: IndexedEntry, now: number): LiveClaim[] {
  const live: LiveClaim[] = [];
  for (const claim of entry.claims.values()) {
    if (isLive(claim, now)) live.push({ subscriptionId: claim.subscriptionId, confidence: claim.confidence, score: Math.round(scoreAt(claim, now) * 10) / 10, labels: claim.labels });
  }
  return live;
}

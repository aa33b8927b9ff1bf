// STIX 2.1 indicator objects to library claims, and cairn's own indicators
// to STIX 2.1 objects (publications). A revoked object withdraws its claims.
import { z } from 'zod';
import { readStixPattern } from './stix-pattern.js';
import type { IndicatorValue, ValueType } from './indicator.js';
import type { FeedClaim, FeedPage } from './sources/types.js';
import { stableId } from '../lib/ids.js';

export const STIX_MEDIA_TYPE = 'application/stix+json;version=2.1';
export const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1';

const StixTimestamp = z.iso.datetime({ offset: true });

/** The properties of an indicator cairn reads; the rest of the object is ignored. */
const StixIndicator = z.object({
  type: z.literal('indicator'),
  id: z.string().regex(/^indicator--[0-9a-fA-F-]{36}$/, 'id must be indicator--<uuid>'),
  pattern: z.string().min(1).max(65_536),
  pattern_type: z.string().default('stix'),
  valid_from: StixTimestamp.optional(),
  valid_until: StixTimestamp.optional(),
  created: StixTimestamp.optional(),
  modified: StixTimestamp.optional(),
  revoked: z.boolean().default(false),
  confidence: z.int().min(0).max(100).optional(),
  labels: z.array(z.string()).default([]),
  indicator_types: z.array(z.string()).default([]),
  name: z.string().optional(),
});

type StixReading = { kind: 'claims'; claims: FeedClaim[] } | { kind: 'revoked'; ref: string } | { kind: 'rejected'; ref: string; reason: string } | { kind: 'ignored' };

const PATTERN_LIMIT = 2000;

/** One STIX object: an indicator's claims, its revocation, or why it was refused; other object types are ignored. */
function readStixObject(object: unknown): StixReading {
  const type = (object as { type?: unknown } | null)?.type;
  if (type !== 'indicator') return { kind: 'ignored' };
  const ref = String((object as { id?: unknown }).id ?? '(no id)').slice(0, 200);
  const parsed = StixIndicator.safeParse(object);
  if (!parsed.success) return { kind: 'rejected', ref, reason: `not a valid STIX 2.1 indicator: ${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}` };
  const indicator = parsed.data;
  if (indicator.revoked) return { kind: 'revoked', ref: indicator.id };
  const common = {
    ref: indicator.id,
    confidence: indicator.confidence,
    labels: [...new Set([...indicator.labels, ...indicator.indicator_types])],
    validFrom: indicator.valid_from,
    validUntil: indicator.valid_until,
    assertedAt: indicator.modified ?? indicator.created ?? indicator.valid_from,
  };
  if (indicator.pattern_type !== 'stix') {
    return { kind: 'claims', claims: [{ ...common, type: 'stix-pattern', value: indicator.pattern.slice(0, PATTERN_LIMIT), matchable: false, note: `not matched at ingest: pattern_type ${indicator.pattern_type}` }] };
  }
  const reading = readStixPattern(indicator.pattern);
  if (!reading.matchable) return { kind: 'claims', claims: [{ ...common, type: 'stix-pattern', value: indicator.pattern.slice(0, PATTERN_LIMIT), matchable: false, note: reading.reason }] };
  return { kind: 'claims', claims: reading.values.map((v) => ({ ...common, type: v.type, value: v.value, matchable: true, note: '' })) };
}

/** STIX objects (a bundle's, a TAXII envelope's) as a feed page: every indicator's claims, revocations and refusals. */
export function readStixObjects(objects: unknown[]): FeedPage {
  const page: FeedPage = { fetched: objects.length, claims: [], withdrawn: [], rejected: [] };
  for (const object of objects) {
    const reading = readStixObject(object);
    if (reading.kind === 'claims') page.claims.push(...reading.claims);
    else if (reading.kind === 'revoked') page.withdrawn.push(reading.ref);
    else if (reading.kind === 'rejected') page.rejected.push({ ref: reading.ref, reason: reading.reason });
  }
  return page;
}

const PATTERN_PATHS: Record<ValueType, string> = {
  'ipv4-addr': 'ipv4-addr:value',
  'ipv4-cidr': 'ipv4-addr:value',
  'ipv6-addr': 'ipv6-addr:value',
  'ipv6-cidr': 'ipv6-addr:value',
  domain: 'domain-name:value',
  url: 'url:value',
  email: 'email-addr:value',
  md5: 'file:hashes.MD5',
  sha1: "file:hashes.'SHA-1'",
  sha256: "file:hashes.'SHA-256'",
};

/** The STIX pattern that names exactly this value. */
function patternOf({ type, value }: IndicatorValue): string {
  return `[${PATTERN_PATHS[type]} = '${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
}

/** STIX timestamps: UTC with milliseconds. */
function stixTime(iso: string): string {
  return new Date(iso).toISOString();
}

/** The STIX id of cairn's identity in an organization, which its objects name as their creator. */
export function identityId(orgId: string): string {
  return `identity--${stableId('stix-identity', orgId)}`;
}

export function identityObject(orgId: string, created: string): Record<string, unknown> {
  return { type: 'identity', spec_version: '2.1', id: identityId(orgId), created: stixTime(created), modified: stixTime(created), name: `cairn (${orgId})`, identity_class: 'organization' };
}

export interface PublishedIndicator extends IndicatorValue {
  stixId: string;
  created: string;
  modified: string;
  confidence: number;
  validUntil: string | null;
  revoked: boolean;
  labels: string[];
  description: string;
}

export function indicatorObject(orgId: string, indicator: PublishedIndicator): Record<string, unknown> {
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: indicator.stixId,
    created_by_ref: identityId(orgId),
    created: stixTime(indicator.created),
    modified: stixTime(indicator.modified),
    name: `${indicator.type} ${indicator.value}`,
    description: indicator.description,
    indicator_types: ['malicious-activity'],
    pattern: patternOf(indicator),
    pattern_type: 'stix',
    pattern_version: '2.1',
    valid_from: stixTime(indicator.created),
    ...(indicator.validUntil ? { valid_until: stixTime(indicator.validUntil) } : {}),
    confidence: indicator.confidence,
    labels: indicator.labels,
    ...(indicator.revoked ? { revoked: true } : {}),
  };
}

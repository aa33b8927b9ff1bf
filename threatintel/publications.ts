// Publications: cairn's own indicators as STIX 2.1 objects. A publication's
// objects are brought up to date whenever they are read (TAXII or bundle):
// indicators that joined it (hand-picked, or named by an incident newly
// classified true positive) are added with the current time as their
// date_added; indicators that left it (an incident reclassified) are
// published again as revoked, so a subscriber removes them.
import { randomUUID } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { GraphScopes } from '../config/env.js';
import type { Store } from '../clickhouse/client.js';
import {
  publishedObjects,
  savePublishedObjects,
  truePositiveIndicators,
  type PublishedObject,
  type StoredPublication,
  type TruePositiveIndicator,
} from '../clickhouse/tables/threatfeed-publications.js';
import { stableId } from '../lib/ids.js';
import { readValue, type IndicatorValue } from './indicator.js';
import { identityId, identityObject, indicatorObject } from './stix.js';

const NOT_PUBLISHED_RANGES = new Set(['private', 'loopback', 'linkLocal', 'unspecified', 'multicast', 'broadcast', 'carrierGradeNat', 'uniqueLocal']);

function isPublishableAddress(value: string): boolean {
  try {
    return !NOT_PUBLISHED_RANGES.has(ipaddr.parse(value).range());
  } catch {
    return false;
  }
}

interface Wanted extends IndicatorValue {
  origin: 'manual' | 'incident';
  description: string;
}

function stixIdOf(publication: StoredPublication, value: IndicatorValue): string {
  return `indicator--${stableId('stix-indicator', publication.org_id, publication.id, value.type, value.value)}`;
}

async function wantedIndicators(store: Store, scopes: GraphScopes, publication: StoredPublication, truePositives: TruePositiveIndicator[] | undefined): Promise<Map<string, Wanted>> {
  const wanted = new Map<string, Wanted>();
  for (const item of publication.indicators) {
    const value = readValue(item.value, item.type as IndicatorValue['type']);
    if (value) wanted.set(stixIdOf(publication, value), { ...value, origin: 'manual', description: `Chosen by hand for publication "${publication.name}"` });
  }
  if (publication.include_true_positives) {
    for (const node of truePositives ?? (await truePositiveIndicators(store, publication.org_id, scopes))) {
      const value = readValue(node.value, node.type === 'domain' ? 'domain' : undefined);
      if (!value || (node.type === 'IP' && !isPublishableAddress(value.value))) continue;
      const id = stixIdOf(publication, value);
      if (!wanted.has(id)) wanted.set(id, { ...value, origin: 'incident', description: `Named by incident ${node.incident_id}, classified true positive` });
    }
  }
  return wanted;
}

const EVERYTHING = 1_000_000;

/**
 * Brings the publication's objects up to date; returns every object it holds
 * now (revoked ones included). `truePositives`: the organization's
 * (truePositiveIndicators), when the caller refreshes several publications;
 * read here when omitted and the publication includes them.
 */
export async function refreshPublication(store: Store, scopes: GraphScopes, publication: StoredPublication, truePositives?: TruePositiveIndicator[]): Promise<PublishedObject[]> {
  const held = new Map((await publishedObjects(store, publication.org_id, publication.id, { limit: EVERYTHING })).map((o) => [o.stix_id, o]));
  const wanted = await wantedIndicators(store, scopes, publication, truePositives);
  const now = new Date().toISOString();
  const writes: PublishedObject[] = [];
  const identity = identityId(publication.org_id);
  if (!held.has(identity)) {
    writes.push({ org_id: publication.org_id, publication_id: publication.id, stix_id: identity, type: 'identity', value: '', origin: 'identity', object: identityObject(publication.org_id, publication.created_at), revoked: false, modified: publication.created_at, date_added: now });
  }
  const validUntil = publication.lifetime_seconds > 0 ? (from: string) => new Date(Date.parse(from) + publication.lifetime_seconds * 1000).toISOString() : () => null;
  for (const [stixId, want] of wanted) {
    const current = held.get(stixId);
    if (current && !current.revoked) continue;
    const created = (current?.object.created as string | undefined) ?? now;
    const object = indicatorObject(publication.org_id, { ...want, stixId, created, modified: now, confidence: publication.confidence, validUntil: validUntil(now), revoked: false, labels: [want.origin === 'incident' ? 'true-positive' : 'curated'], description: want.description });
    writes.push({ org_id: publication.org_id, publication_id: publication.id, stix_id: stixId, type: want.type, value: want.value, origin: want.origin, object, revoked: false, modified: now, date_added: now });
  }
  for (const [stixId, current] of held) {
    if (current.origin === 'identity' || current.revoked || wanted.has(stixId)) continue;
    // A new version, revoked: what a subscriber needs to stop matching it.
    const object = { ...current.object, modified: now, revoked: true };
    writes.push({ ...current, object, revoked: true, modified: now, date_added: now });
  }
  await savePublishedObjects(store, writes);
  for (const write of writes) held.set(write.stix_id, write);
  return [...held.values()];
}

/** The publication as one STIX 2.1 bundle of its current (not revoked) objects. */
export function bundleOf(objects: PublishedObject[]): Record<string, unknown> {
  return { type: 'bundle', id: `bundle--${randomUUID()}`, objects: objects.filter((o) => !o.revoked).map((o) => o.object) };
}

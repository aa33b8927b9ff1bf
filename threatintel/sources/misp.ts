// MISP feeds (the format MISP itself publishes: manifest.json listing the
// events, and <uuid>.json per event). Only attributes flagged for detection
// (to_ids) become claims; an attribute no longer flagged, or deleted, is
// withdrawn. Incremental: the cursor is the newest event timestamp stored,
// and only events changed since are fetched again.
import { z } from 'zod';
import { canonicalValue, type ValueType } from '../indicator.js';
import { describeUrl } from '../feeds.js';
import { fetchJson } from './fetch.js';
import { FeedError, type FeedClaim, type FeedPage, type FeedRead, type FeedRequest } from './types.js';
import { lookupTable } from '../../lib/lookup-table.js';

/** MISP attribute types cairn matches, to its indicator types; composite "a|b" types name the first part's type and the second's. */
const TYPES = lookupTable<ValueType | null>({
  'ip-src': null,
  'ip-dst': null,
  domain: 'domain',
  hostname: 'domain',
  url: 'url',
  uri: 'url',
  link: 'url',
  md5: 'md5',
  sha1: 'sha1',
  sha256: 'sha256',
  'email-src': 'email',
  'email-dst': 'email',
  email: 'email',
});
const COMPOSITE = lookupTable<(ValueType | null | undefined)[]>({
  'ip-src|port': [null],
  'ip-dst|port': [null],
  'domain|ip': ['domain', null],
  'hostname|port': ['domain'],
  'filename|md5': [undefined, 'md5'],
  'filename|sha1': [undefined, 'sha1'],
  'filename|sha256': [undefined, 'sha256'],
});

const Timestamp = z.union([z.string(), z.number()]).transform((v) => Number(v));
const Manifest = z.record(z.string(), z.object({ timestamp: Timestamp.optional(), info: z.string().optional() }).loose());
const Tag = z.object({ name: z.string() }).loose();
const Attribute = z
  .object({
    uuid: z.string(),
    type: z.string(),
    value: z.string(),
    to_ids: z.union([z.boolean(), z.string(), z.number()]).transform((v) => v === true || v === '1' || v === 1 || v === 'true'),
    deleted: z.union([z.boolean(), z.string(), z.number()]).optional().transform((v) => v === true || v === '1' || v === 1 || v === 'true'),
    timestamp: Timestamp.optional(),
    Tag: z.array(Tag).optional(),
  })
  .loose();
const EventFile = z.object({
  Event: z
    .object({
      uuid: z.string().optional(),
      timestamp: Timestamp.optional(),
      Attribute: z.array(Attribute).default([]),
      Object: z.array(z.object({ Attribute: z.array(Attribute).default([]) }).loose()).default([]),
      Tag: z.array(Tag).optional(),
    })
    .loose(),
});

type MispAttribute = z.output<typeof Attribute>;

/** The values an attribute names, with their types. */
function valuesOf(attribute: MispAttribute): { type: ValueType; value: string }[] {
  const parts = COMPOSITE[attribute.type] ? attribute.value.split('|') : [attribute.value];
  const types = COMPOSITE[attribute.type] ?? (attribute.type in TYPES ? [TYPES[attribute.type]] : []);
  return types.flatMap((type, i) => {
    const text = parts[i];
    if (type === undefined || text === undefined) return [];
    // Addresses: the family follows the text; a CIDR is allowed (ip-dst 192.0.2.0/24).
    const found = type === null ? (canonicalValue('ipv4-addr', text) ?? canonicalValue('ipv6-addr', text)) : canonicalValue(type, text);
    return found ? [found] : [];
  });
}

export function readMisp(request: FeedRequest): FeedRead {
  const auth = request.feed.settings;
  const base = request.url.endsWith('/') ? request.url : request.url.replace(/\/manifest\.json$/, '/').replace(/([^/])$/, '$1/');
  async function* pages(): AsyncGenerator<FeedPage> {
    const { json } = await fetchJson(request.client, new URL('manifest.json', base).toString(), auth);
    const manifest = Manifest.safeParse(json);
    if (!manifest.success) throw new FeedError(`${describeUrl(base)}manifest.json is not a MISP feed manifest`);
    const since = Number(request.cursor || 0);
    // Oldest first, so the cursor (the newest timestamp stored) only moves past events that are stored.
    const events = Object.entries(manifest.data)
      .map(([uuid, entry]) => ({ uuid, timestamp: entry.timestamp ?? 0 }))
      .filter((e) => /^[0-9a-fA-F-]{36}$/.test(e.uuid) && (e.timestamp === 0 || e.timestamp > since))
      .sort((a, b) => a.timestamp - b.timestamp);
    for (const event of events) {
      const { json: body } = await fetchJson(request.client, new URL(`${event.uuid}.json`, base).toString(), auth);
      const file = EventFile.safeParse(body);
      const page: FeedPage = { fetched: 0, claims: [], withdrawn: [], rejected: [], cursor: String(Math.max(since, event.timestamp)) };
      if (!file.success) {
        page.rejected.push({ ref: event.uuid, reason: 'not a MISP event file' });
        yield page;
        continue;
      }
      const eventTags = (file.data.Event.Tag ?? []).map((t) => t.name);
      for (const attribute of [...file.data.Event.Attribute, ...file.data.Event.Object.flatMap((o) => o.Attribute)]) {
        page.fetched++;
        const ref = `misp:${attribute.uuid}`;
        if (!attribute.to_ids || attribute.deleted) {
          page.withdrawn.push(ref);
          continue;
        }
        const values = valuesOf(attribute);
        if (values.length === 0) {
          if (attribute.type in TYPES || attribute.type in COMPOSITE) page.rejected.push({ ref, reason: `"${attribute.value.slice(0, 100)}" is not a valid ${attribute.type}` });
          continue;
        }
        const at = attribute.timestamp ?? file.data.Event.timestamp ?? event.timestamp;
        const claim: Omit<FeedClaim, 'type' | 'value'> = {
          ref,
          matchable: true,
          note: '',
          labels: [...new Set([...eventTags, ...(attribute.Tag ?? []).map((t) => t.name)])],
          assertedAt: at ? new Date(at * 1000).toISOString() : undefined,
        };
        for (const value of values) page.claims.push({ ...claim, ...value });
      }
      yield page;
    }
  }
  return { pages: pages(), snapshot: false };
}

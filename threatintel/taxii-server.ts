// cairn's TAXII 2.1 server: discovery at /taxii2/, one API root, and a
// read-only collection per publication, with `objects` (added_after, limit,
// next, match[id], match[type], match[version], match[spec_version]), one
// object, its versions, and the manifest. Only the latest version of an
// object is kept; `next` is an opaque position in (date_added, id) order, so
// paging is stable while objects are added. api/routes/taxii.ts serves it.
import { z } from 'zod';
import type { GraphScopes } from '../config/env.js';
import type { Store } from '../clickhouse/client.js';
import { getPublication, listPublications, publishedObjects, type PublishedObject, type StoredPublication } from '../clickhouse/tables/threatfeed-publications.js';
import { refreshPublication } from './publications.js';
import { STIX_MEDIA_TYPE, TAXII_MEDIA_TYPE } from './stix.js';
export const TAXII_ROOT_PATH = '/taxii2/';
export const API_ROOT_NAME = 'cairn';
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

export class TaxiiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly description: string,
  ) {
    super(title);
    this.name = 'TaxiiError';
  }

  /** The TAXII error message resource. */
  body(): Record<string, unknown> {
    return { title: this.title, description: this.description, http_status: String(this.status) };
  }
}

export interface TaxiiAnswer {
  body: unknown;
  headers?: Record<string, string>;
}

export interface TaxiiContext {
  store: Store;
  scopes: GraphScopes;
  orgId: string;
  /** Where this client reached cairn (scheme and host of the request; behind a proxy with CAIRN_TRUST_PROXY, the forwarded ones), for the absolute API root URL. */
  baseUrl: string;
}

export function discovery(ctx: TaxiiContext): TaxiiAnswer {
  const root = `${ctx.baseUrl}${TAXII_ROOT_PATH}${API_ROOT_NAME}/`;
  return { body: { title: 'cairn TAXII 2.1 server', description: "cairn's published indicators (docs/threat-intel.md)", default: root, api_roots: [root] } };
}

export function apiRoot(): TaxiiAnswer {
  return { body: { title: 'cairn', description: 'Collections of cairn publications', versions: [TAXII_MEDIA_TYPE], max_content_length: 10 * 1024 * 1024 } };
}

function collectionResource(publication: StoredPublication): Record<string, unknown> {
  return { id: publication.id, title: publication.name, description: publication.description, can_read: true, can_write: false, media_types: [STIX_MEDIA_TYPE] };
}

export async function collections(ctx: TaxiiContext): Promise<TaxiiAnswer> {
  const { publications } = await listPublications(ctx.store, ctx.orgId, { limit: MAX_LIMIT, offset: 0 });
  return { body: { collections: publications.map(collectionResource) } };
}

async function findCollection(ctx: TaxiiContext, id: string): Promise<StoredPublication> {
  const publication = z.uuid().safeParse(id).success ? await getPublication(ctx.store, ctx.orgId, id) : null;
  if (!publication) throw new TaxiiError(404, 'Collection not found', `no collection ${id.slice(0, 100)} in this API root`);
  return publication;
}

export async function collection(ctx: TaxiiContext, id: string): Promise<TaxiiAnswer> {
  return { body: collectionResource(await findCollection(ctx, id)) };
}

export type QueryParams = Record<string, string | string[] | undefined>;

function single(query: QueryParams, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new TaxiiError(400, 'Bad request', `${name} may be given once`);
  return value;
}

function list(query: QueryParams, name: string): string[] | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

interface Filter {
  addedAfter?: string;
  after?: { dateAdded: string; stixId: string };
  limit: number;
  types?: string[];
  ids?: string[];
}

function readFilter(query: QueryParams, fixedId?: string): Filter {
  const addedAfter = single(query, 'added_after');
  if (addedAfter !== undefined && Number.isNaN(Date.parse(addedAfter))) throw new TaxiiError(400, 'Bad request', 'added_after must be a timestamp (RFC 3339)');
  const limitText = single(query, 'limit');
  const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) throw new TaxiiError(400, 'Bad request', 'limit must be a positive integer');
  const nextText = single(query, 'next');
  let after: Filter['after'];
  if (nextText !== undefined) {
    const [dateAdded, stixId] = Buffer.from(nextText, 'base64url').toString('utf8').split('|');
    if (!dateAdded || !stixId || Number.isNaN(Date.parse(dateAdded))) throw new TaxiiError(400, 'Bad request', 'next is not a value this server gave');
    after = { dateAdded, stixId };
  }
  const specVersions = list(query, 'match[spec_version]');
  if (specVersions && !specVersions.includes('2.1')) return { limit: 0 };
  const versions = list(query, 'match[version]');
  if (versions && versions.some((v) => v !== 'last' && v !== 'first' && v !== 'all' && Number.isNaN(Date.parse(v)))) throw new TaxiiError(400, 'Bad request', 'match[version] must be last, first, all or a timestamp');
  const ids = fixedId ? [fixedId] : list(query, 'match[id]');
  return { addedAfter: addedAfter ? new Date(addedAfter).toISOString() : undefined, after, limit: Math.min(limit, MAX_LIMIT), types: list(query, 'match[type]'), ids };
}

/** One page of a collection's objects (up to date), with the paging answer and the date-added headers. */
async function page(ctx: TaxiiContext, collectionId: string, query: QueryParams, fixedId?: string): Promise<{ objects: PublishedObject[]; more: boolean; next?: string; headers: Record<string, string> }> {
  const publication = await findCollection(ctx, collectionId);
  const filter = readFilter(query, fixedId);
  if (filter.limit === 0) return { objects: [], more: false, headers: {} };
  // Bring the collection up to date, then read one more than asked to know whether there is more.
  await refreshPublication(ctx.store, ctx.scopes, publication);
  const rows = await publishedObjects(ctx.store, ctx.orgId, publication.id, { ...filter, limit: filter.limit + 1 });
  const objects = rows.slice(0, filter.limit);
  const more = rows.length > filter.limit;
  const last = objects.at(-1);
  const headers: Record<string, string> = objects.length ? { 'X-TAXII-Date-Added-First': objects[0]!.date_added, 'X-TAXII-Date-Added-Last': last!.date_added } : {};
  return { objects, more, next: more && last ? Buffer.from(`${last.date_added}|${last.stix_id}`).toString('base64url') : undefined, headers };
}

export async function objects(ctx: TaxiiContext, collectionId: string, query: QueryParams): Promise<TaxiiAnswer> {
  const found = await page(ctx, collectionId, query);
  return { body: { more: found.more, ...(found.next ? { next: found.next } : {}), objects: found.objects.map((o) => o.object) }, headers: found.headers };
}

export async function object(ctx: TaxiiContext, collectionId: string, objectId: string, query: QueryParams): Promise<TaxiiAnswer> {
  const found = await page(ctx, collectionId, query, objectId);
  if (found.objects.length === 0 && single(query, 'next') === undefined) throw new TaxiiError(404, 'Object not found', `no object ${objectId.slice(0, 100)} in this collection`);
  return { body: { more: found.more, objects: found.objects.map((o) => o.object) }, headers: found.headers };
}

export async function versions(ctx: TaxiiContext, collectionId: string, objectId: string, query: QueryParams): Promise<TaxiiAnswer> {
  const found = await page(ctx, collectionId, query, objectId);
  if (found.objects.length === 0) throw new TaxiiError(404, 'Object not found', `no object ${objectId.slice(0, 100)} in this collection`);
  return { body: { more: false, versions: found.objects.map((o) => o.modified) }, headers: found.headers };
}

export async function manifest(ctx: TaxiiContext, collectionId: string, query: QueryParams): Promise<TaxiiAnswer> {
  const found = await page(ctx, collectionId, query);
  return {
    body: { more: found.more, ...(found.next ? { next: found.next } : {}), objects: found.objects.map((o) => ({ id: o.stix_id, date_added: o.date_added, version: o.modified, media_type: STIX_MEDIA_TYPE })) },
    headers: found.headers,
  };
}

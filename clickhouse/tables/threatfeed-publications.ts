// Publications (cairn's own indicators as a TAXII collection and a STIX
// bundle) and the objects each holds, with the time each was added.
import { z } from 'zod';
import type { GraphScopes } from '../../config/env.js';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, whereClause, type Page } from '../sql.js';
import { nextVersion } from '../version.js';
import { nodeQuery } from './nodes.js';

export interface StoredPublication {
  id: string;
  org_id: string;
  name: string;
  description: string;
  include_true_positives: boolean;
  /** Hand-picked indicators, canonical. */
  indicators: { type: string; value: string }[];
  confidence: number;
  /** 0: published indicators carry no valid_until. */
  lifetime_seconds: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

const PublicationRow = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.string(),
  include_true_positives: z.boolean(),
  indicators: z.string(),
  confidence: z.coerce.number(),
  lifetime_seconds: z.coerce.number(),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

const COLUMNS = 'id, org_id, name, description, include_true_positives, indicators, confidence, lifetime_seconds, created_by, created_at, updated_at';

function fromRow(row: unknown): StoredPublication {
  const r = PublicationRow.parse(row);
  return {
    ...r,
    indicators: z.array(z.object({ type: z.string(), value: z.string() })).parse(JSON.parse(r.indicators)),
    created_at: toIsoTimestamp(r.created_at),
    updated_at: toIsoTimestamp(r.updated_at),
  };
}

export async function savePublication(store: Store, publication: StoredPublication): Promise<void> {
  await store.insert({
    table: 'threatfeed_publications',
    format: 'JSONEachRow',
    values: [{ ...publication, indicators: JSON.stringify(publication.indicators), created_at: toClickHouseTime(publication.created_at), updated_at: toClickHouseTime(publication.updated_at), version: nextVersion(), is_deleted: 0 }],
  });
}

export async function getPublication(store: Store, orgId: string, id: string): Promise<StoredPublication | null> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT ${COLUMNS} FROM threatfeed_publications FINAL WHERE org_id = ${params.add(orgId, 'String')} AND id = ${params.add(id, 'UUID')} LIMIT 1`, params);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function listPublications(store: Store, orgId: string, page: Page): Promise<{ publications: StoredPublication[]; total: number }> {
  const params = new SqlParams();
  const { rows, total } = await queryPage(store, { query: `SELECT ${COLUMNS} FROM threatfeed_publications FINAL WHERE org_id = ${params.add(orgId, 'String')}`, params, orderBy: 'created_at DESC, id', page });
  return { publications: rows.map(fromRow), total };
}

export interface PublishedObject {
  org_id: string;
  publication_id: string;
  stix_id: string;
  type: string;
  value: string;
  /** manual, incident or identity. */
  origin: string;
  object: Record<string, unknown>;
  revoked: boolean;
  modified: string;
  date_added: string;
}

const ObjectRow = z.object({
  org_id: z.string(),
  pid: z.string(),
  stix_id: z.string(),
  type: z.string(),
  value: z.string(),
  origin: z.string(),
  object: z.string(),
  revoked: z.boolean(),
  modified: z.string(),
  date_added: z.string(),
});

function objectFromRow(row: unknown): PublishedObject {
  const { pid, ...r } = ObjectRow.parse(row);
  return { ...r, publication_id: pid, object: z.record(z.string(), z.unknown()).parse(JSON.parse(r.object)), modified: toIsoTimestamp(r.modified), date_added: toIsoTimestamp(r.date_added) };
}

const OBJECT_COLUMNS = 'org_id, toString(publication_id) AS pid, stix_id, type, value, origin, object, revoked, modified, date_added';

export async function savePublishedObjects(store: Store, objects: PublishedObject[]): Promise<void> {
  if (objects.length === 0) return;
  await store.insert({
    table: 'threatfeed_published_objects',
    format: 'JSONEachRow',
    values: objects.map((o) => ({ ...o, object: JSON.stringify(o.object), modified: toClickHouseTime(o.modified), date_added: toClickHouseTime(o.date_added), version: nextVersion() })),
  });
}

export interface ObjectQuery {
  /** Only objects added after this time (TAXII added_after). */
  addedAfter?: string;
  /** Resume after this object in (date_added, stix_id) order (TAXII next). */
  after?: { dateAdded: string; stixId: string };
  types?: string[];
  ids?: string[];
  /** Revoked objects are served (a subscriber must learn of the revocation) unless false. */
  includeRevoked?: boolean;
  limit: number;
}

/** A publication's objects, oldest addition first. */
export async function publishedObjects(store: Store, orgId: string, publicationId: string, query: ObjectQuery): Promise<PublishedObject[]> {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId, 'String')}`, `publication_id = ${params.add(publicationId, 'UUID')}`];
  if (query.addedAfter) where.push(`date_added > ${params.add(toClickHouseTime(query.addedAfter), 'DateTime64(3)')}`);
  if (query.after) where.push(`(date_added, stix_id) > (${params.add(toClickHouseTime(query.after.dateAdded), 'DateTime64(3)')}, ${params.add(query.after.stixId, 'String')})`);
  if (query.types?.length) where.push(`splitByString('--', stix_id)[1] IN ${params.add(query.types, 'Array(String)')}`);
  if (query.ids?.length) where.push(`stix_id IN ${params.add(query.ids, 'Array(String)')}`);
  if (query.includeRevoked === false) where.push('NOT revoked');
  const rows = await queryRows(store, `SELECT ${OBJECT_COLUMNS} FROM threatfeed_published_objects FINAL ${whereClause(where)} ORDER BY date_added, stix_id LIMIT ${params.add(query.limit, 'UInt32')}`, params);
  return rows.map(objectFromRow);
}

/** Objects (live ones) per publication, for the list. */
export async function objectCounts(store: Store, orgId: string, publicationIds: string[]): Promise<Map<string, number>> {
  if (publicationIds.length === 0) return new Map();
  const params = new SqlParams();
  const rows = (await queryRows(
    store,
    `SELECT toString(publication_id) AS pid, countIf(NOT revoked AND origin != 'identity') AS n FROM threatfeed_published_objects FINAL
     WHERE org_id = ${params.add(orgId, 'String')} AND publication_id IN ${params.add(publicationIds, 'Array(UUID)')} GROUP BY publication_id`,
    params,
  )) as { pid: string; n: string }[];
  return new Map(rows.map((r) => [r.pid, Number(r.n)]));
}

/** An address or domain of an incident classified true positive, with that incident. */
export interface TruePositiveIndicator {
  type: string;
  value: string;
  incident_id: string;
}

/**
 * Addresses and domains of incidents classified true positive (status 3
 * Resolved or 5 Disrupted), leaving out what is internal, managed or trusted:
 * the attacked side of an incident is never published.
 */
export async function truePositiveIndicators(store: Store, orgId: string, scopes: GraphScopes): Promise<TruePositiveIndicator[]> {
  const params = new SqlParams();
  const org = params.add(orgId, 'String');
  const incidents = (await queryRows(
    store,
    `SELECT toString(i.id) AS incident_id, i.node_ids AS node_ids FROM incidents AS i FINAL
     WHERE i.org_id = ${org} AND i.id IN (SELECT incident_id FROM incident_status FINAL WHERE org_id = ${org} AND status IN (3, 5))`,
    params,
  )) as { incident_id: string; node_ids: string[] }[];
  const incidentOf = new Map<string, string>();
  for (const incident of incidents) for (const node of incident.node_ids) if (!incidentOf.has(node)) incidentOf.set(node, incident.incident_id);
  if (incidentOf.size === 0) return [];
  const nodeParams = new SqlParams();
  const nodes = (await queryRows(
    store,
    `SELECT id, type, value FROM (${nodeQuery(orgId, scopes, { ids: [...incidentOf.keys()], flags: { internal: false, managed: false, trusted: false } }, nodeParams)}) WHERE type IN ('IP', 'domain') ORDER BY id`,
    nodeParams,
  )) as { id: string; type: string; value: string }[];
  return nodes.map((n) => ({ type: n.type, value: n.value, incident_id: incidentOf.get(n.id)! }));
}

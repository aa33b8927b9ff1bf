// The user_decoders table: the decoders organizations add at runtime, each a
// service of the decoder catalogue's form stored as JSON. The spec is checked
// by the API before it is written (api/routes/decoders.ts) and compiled by
// the pipeline (pipeline/parser/decoders/user.ts); here it is only data.
import { z } from 'zod';
import { toIsoTimestamp, type Store } from '../client.js';
import { queryPage, SqlParams, whereClause } from '../sql.js';
import { nextVersion } from '../version.js';

export interface StoredDecoder {
  id: string;
  org_id: string;
  /** The service name its spec gives, unique in the organization. */
  service: string;
  /** The service as the catalogue's schema gives it (defaults filled in). */
  spec: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const DecoderRow = z.object({
  id: z.string(),
  org_id: z.string(),
  service: z.string(),
  spec: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

const COLUMNS = 'id, org_id, service, spec, created_at, updated_at';

function fromRow(row: unknown): StoredDecoder {
  const r = DecoderRow.parse(row);
  return {
    ...r,
    spec: z.record(z.string(), z.unknown()).parse(JSON.parse(r.spec)),
    created_at: toIsoTimestamp(r.created_at),
    updated_at: toIsoTimestamp(r.updated_at),
  };
}

async function insertVersion(store: Store, decoder: StoredDecoder, isDeleted: boolean): Promise<void> {
  await store.insert({
    table: 'user_decoders',
    format: 'JSONEachRow',
    values: [{ ...decoder, spec: JSON.stringify(decoder.spec), version: nextVersion(), is_deleted: isDeleted ? 1 : 0 }],
  });
}

/** Writes the decoder as its newest version (create and update alike). */
export async function saveDecoder(store: Store, decoder: StoredDecoder): Promise<void> {
  await insertVersion(store, decoder, false);
}

export async function deleteDecoder(store: Store, decoder: StoredDecoder): Promise<void> {
  await insertVersion(store, { ...decoder, updated_at: new Date().toISOString() }, true);
}

export async function getDecoder(store: Store, orgId: string, id: string): Promise<StoredDecoder | null> {
  const result = await store.query({
    query: `SELECT ${COLUMNS} FROM user_decoders FINAL WHERE org_id = {orgId:String} AND id = {id:UUID} LIMIT 1`,
    query_params: { orgId, id },
    format: 'JSONEachRow',
  });
  const rows = await result.json();
  return rows[0] ? fromRow(rows[0]) : null;
}

/** The order decoders are tried in within an organization: the oldest first. */
const PRECEDENCE = 'created_at, id';

export async function listDecoders(store: Store, orgId: string, page: { limit: number; offset: number }): Promise<{ decoders: StoredDecoder[]; total: number }> {
  const params = new SqlParams();
  const { rows, total } = await queryPage(store, {
    query: `SELECT ${COLUMNS} FROM user_decoders FINAL ${whereClause([`org_id = ${params.add(orgId, 'String')}`])}`,
    params,
    orderBy: PRECEDENCE,
    page,
  });
  return { decoders: rows.map(fromRow), total };
}

/** Every decoder of one organization, in the order they are tried. */
export async function orgDecoders(store: Store, orgId: string): Promise<StoredDecoder[]> {
  const result = await store.query({
    query: `SELECT ${COLUMNS} FROM user_decoders FINAL WHERE org_id = {orgId:String} ORDER BY ${PRECEDENCE}`,
    query_params: { orgId },
    format: 'JSONEachRow',
  });
  return (await result.json()).map(fromRow);
}

/** Every decoder of every organization, by organization in the order they are tried: what the pipeline applies. */
export async function allDecoders(store: Store): Promise<StoredDecoder[]> {
  const result = await store.query({
    query: `SELECT ${COLUMNS} FROM user_decoders FINAL ORDER BY org_id, ${PRECEDENCE}`,
    format: 'JSONEachRow',
  });
  return (await result.json()).map(fromRow);
}

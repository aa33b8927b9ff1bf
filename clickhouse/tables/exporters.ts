// The exporters table: rows, writes and named queries. Settings arrive here
// already sealed (pipeline/exporters/settings.ts).
import { z } from 'zod';
import { toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, type Page } from '../sql.js';
import { nextVersion } from '../version.js';

export const EXPORTER_TYPES = ['syslog', 'http', 'kafka'] as const;
export type ExporterType = (typeof EXPORTER_TYPES)[number];

export interface StoredExporter {
  id: string;
  org_id: string;
  name: string;
  enabled: boolean;
  /** The search language; empty matches every artifact. */
  query: string;
  /** Only artifacts of this source; null for every source. */
  source: string | null;
  type: ExporterType;
  /** The destination's settings; secrets sealed. */
  settings: Record<string, unknown>;
  failure_cooldown_minutes: number;
  /** When it was created or last enabled: artifacts that reach cairn from then on are forwarded. */
  active_since: string;
  created_at: string;
  updated_at: string;
}

const ExporterRow = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  query: z.string(),
  source: z.string(),
  type: z.enum(EXPORTER_TYPES),
  settings: z.string(),
  failure_cooldown_minutes: z.coerce.number(),
  active_since: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

const COLUMNS = 'id, org_id, name, enabled, query, source, type, settings, failure_cooldown_minutes, active_since, created_at, updated_at';

function fromRow(row: unknown): StoredExporter {
  const r = ExporterRow.parse(row);
  return {
    ...r,
    source: r.source || null,
    settings: z.record(z.string(), z.unknown()).parse(JSON.parse(r.settings)),
    active_since: toIsoTimestamp(r.active_since),
    created_at: toIsoTimestamp(r.created_at),
    updated_at: toIsoTimestamp(r.updated_at),
  };
}

async function insertVersion(store: Store, exporter: StoredExporter, isDeleted: boolean): Promise<void> {
  await store.insert({
    table: 'exporters',
    format: 'JSONEachRow',
    values: [{ ...exporter, source: exporter.source ?? '', settings: JSON.stringify(exporter.settings), version: nextVersion(), is_deleted: isDeleted ? 1 : 0 }],
  });
}

/** Writes the exporter as its newest version (create and update alike). */
export async function saveExporter(store: Store, exporter: StoredExporter): Promise<void> {
  await insertVersion(store, exporter, false);
}

export async function deleteExporter(store: Store, exporter: StoredExporter): Promise<void> {
  await insertVersion(store, { ...exporter, updated_at: new Date().toISOString() }, true);
}

export async function getExporter(store: Store, orgId: string, id: string): Promise<StoredExporter | null> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT ${COLUMNS} FROM exporters FINAL WHERE org_id = ${params.add(orgId, 'String')} AND id = ${params.add(id, 'UUID')} LIMIT 1`, params);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function listExporters(store: Store, orgId: string, page: Page): Promise<{ exporters: StoredExporter[]; total: number }> {
  const params = new SqlParams();
  const { rows, total } = await queryPage(store, {
    query: `SELECT ${COLUMNS} FROM exporters FINAL WHERE org_id = ${params.add(orgId, 'String')}`,
    params,
    orderBy: 'created_at DESC, id',
    page,
  });
  return { exporters: rows.map(fromRow), total };
}

/** Every exporter of every organization, enabled or not (deleted ones are gone), for the exporters stage. */
export async function listAllExporters(store: Store): Promise<StoredExporter[]> {
  const rows = await queryRows(store, `SELECT ${COLUMNS} FROM exporters FINAL ORDER BY org_id, id`, new SqlParams());
  return rows.map(fromRow);
}

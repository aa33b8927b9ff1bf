// The settings table: one JSON document per (organization, name). Callers
// seal secrets before they get here (identity/auth-settings.ts).
import { z } from 'zod';
import { toIsoTimestamp, type Store } from '../client.js';
import { queryRows, SqlParams } from '../sql.js';
import { nextVersion } from '../version.js';

export interface StoredSetting {
  value: unknown;
  updated_at: string;
  updated_by: string;
}

const SettingRow = z.object({ value: z.string(), updated_at: z.string(), updated_by: z.string() });

export async function readSetting(store: Store, orgId: string, name: string): Promise<StoredSetting | null> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT value, updated_at, updated_by FROM settings FINAL WHERE org_id = ${params.add(orgId, 'String')} AND name = ${params.add(name, 'String')}`, params);
  if (!rows[0]) return null;
  const row = SettingRow.parse(rows[0]);
  return { value: JSON.parse(row.value) as unknown, updated_at: toIsoTimestamp(row.updated_at), updated_by: row.updated_by };
}

export async function writeSetting(store: Store, orgId: string, name: string, value: unknown, updatedBy: string): Promise<void> {
  await store.insert({
    table: 'settings',
    format: 'JSONEachRow',
    values: [{ org_id: orgId, name, value: JSON.stringify(value), updated_at: new Date().toISOString(), updated_by: updatedBy, version: nextVersion() }],
  });
}

// The report_snapshots table: reports kept as they were when taken.
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, whereClause, type Page } from '../sql.js';

export interface ReportSnapshot {
  id: string;
  org_id: string;
  type: string;
  period_start: string;
  period_end: string;
  parameters: Record<string, unknown>;
  report: unknown;
  rows: Record<string, string | number | null>[];
  trigger: 'schedule' | 'manual';
  created_by: string;
  created_at: string;
}

const SnapshotRow = z.object({
  id: z.string(),
  org_id: z.string(),
  type: z.string(),
  period_start: z.string(),
  period_end: z.string(),
  parameters: z.string(),
  report: z.string(),
  rows: z.string(),
  trigger: z.enum(['schedule', 'manual']),
  created_by: z.string(),
  created_at: z.string(),
});

function fromRow(row: unknown): ReportSnapshot {
  const r = SnapshotRow.parse(row);
  return {
    ...r,
    period_start: toIsoTimestamp(r.period_start),
    period_end: toIsoTimestamp(r.period_end),
    created_at: toIsoTimestamp(r.created_at),
    parameters: JSON.parse(r.parameters) as Record<string, unknown>,
    report: r.report ? (JSON.parse(r.report) as unknown) : null,
    rows: r.rows ? (JSON.parse(r.rows) as ReportSnapshot['rows']) : [],
  };
}

export async function saveSnapshot(store: Store, snapshot: ReportSnapshot): Promise<void> {
  await store.insert({
    table: 'report_snapshots',
    format: 'JSONEachRow',
    values: [{ ...snapshot, period_start: toClickHouseTime(snapshot.period_start), period_end: toClickHouseTime(snapshot.period_end), parameters: JSON.stringify(snapshot.parameters), report: JSON.stringify(snapshot.report), rows: JSON.stringify(snapshot.rows) }],
  });
}

export async function getSnapshot(store: Store, orgId: string, id: string): Promise<ReportSnapshot | null> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT * FROM report_snapshots WHERE org_id = ${params.add(orgId, 'String')} AND id = ${params.add(id, 'UUID')} LIMIT 1`, params);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function listSnapshots(store: Store, orgId: string, filter: Page & { type?: string }): Promise<{ snapshots: ReportSnapshot[]; total: number }> {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId, 'String')}`];
  if (filter.type) where.push(`type = ${params.add(filter.type, 'String')}`);
  // The list leaves the bodies out: they can be large.
  const { rows, total } = await queryPage(store, { query: `SELECT * EXCEPT (report, rows), '' AS report, '' AS rows FROM report_snapshots ${whereClause(where)}`, params, orderBy: 'created_at DESC, id', page: filter });
  return { snapshots: rows.map(fromRow), total };
}

/** Whether a scheduled snapshot of this type already covers the day (UTC) starting at `dayStart`. */
export async function hasScheduledSnapshot(store: Store, orgId: string, type: string, dayStart: string): Promise<boolean> {
  const params = new SqlParams();
  const rows = await queryRows(
    store,
    `SELECT count() AS n FROM report_snapshots WHERE org_id = ${params.add(orgId, 'String')} AND type = ${params.add(type, 'String')} AND trigger = 'schedule' AND created_at >= ${params.add(toClickHouseTime(dayStart), 'DateTime64(3)')}`,
    params,
  );
  return Number((rows[0] as { n: string }).n) > 0;
}

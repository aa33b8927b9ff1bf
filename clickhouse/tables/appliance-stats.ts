// What the store holds, for GET /v1/appliance/stats: rows and bytes per
// table (the whole deployment) and the totals of one organization.
import { z } from 'zod';
import type { Store } from '../client.js';
import { queryRows, SqlParams } from '../sql.js';

export interface TableSize {
  table: string;
  rows: number;
  bytes_on_disk: number;
}

/** Active parts per table: rows include versions not yet merged away (ReplacingMergeTree), so they can exceed what FINAL reads. */
export async function tableSizes(store: Store): Promise<TableSize[]> {
  const rows = await queryRows(
    store,
    `SELECT table, sum(rows) AS rows, sum(bytes_on_disk) AS bytes_on_disk FROM system.parts
     WHERE database = currentDatabase() AND active GROUP BY table ORDER BY bytes_on_disk DESC`,
    new SqlParams(),
  );
  return rows.map((row) => z.object({ table: z.string(), rows: z.coerce.number(), bytes_on_disk: z.coerce.number() }).parse(row));
}

export interface OrgTotals {
  artifacts: number;
  events: number;
  nodes: number;
  edges: number;
  observations: number;
  leads: number;
  incidents: number;
  incidents_by_status: Record<string, number>;
}

const Count = z.object({ n: z.coerce.number() });

export async function orgTotals(store: Store, orgId: string): Promise<OrgTotals> {
  const params = new SqlParams();
  const org = params.add(orgId, 'String');
  const count = async (query: string) => Count.parse((await queryRows(store, query, params))[0]).n;
  const byStatus = await queryRows(
    store,
    `SELECT if(s.status = 0, 1, s.status) AS status, count() AS n
     FROM (SELECT id FROM incidents FINAL WHERE org_id = ${org}) AS i
     LEFT JOIN (SELECT incident_id, status FROM incident_status FINAL WHERE org_id = ${org}) AS s ON s.incident_id = i.id
     GROUP BY status ORDER BY status`,
    params,
  );
  const incidentsByStatus = Object.fromEntries(byStatus.map((row) => z.object({ status: z.coerce.number(), n: z.coerce.number() }).parse(row)).map((r) => [String(r.status), r.n]));
  return {
    artifacts: await count(`SELECT count() AS n FROM artifacts WHERE org_id = ${org}`),
    // Events are keyed by artifact id: a replay not yet merged away may count twice.
    events: await count(`SELECT count() AS n FROM events WHERE org_id = ${org}`),
    nodes: await count(`SELECT uniqExact(id) AS n FROM nodes WHERE org_id = ${org}`),
    edges: await count(`SELECT uniqExact(id) AS n FROM edges WHERE org_id = ${org}`),
    observations: await count(`SELECT count() AS n FROM observations FINAL WHERE org_id = ${org}`),
    leads: await count(`SELECT uniqExact(id) AS n FROM leads WHERE org_id = ${org}`),
    incidents: Object.values(incidentsByStatus).reduce((a, b) => a + b, 0),
    incidents_by_status: incidentsByStatus,
  };
}

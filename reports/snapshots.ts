// Report snapshots: a report computed now and kept whole, on demand or on a
// daily schedule (CAIRN_REPORT_SNAPSHOTS, default the executive report), so
// it still answers after the data it was computed from has aged out.
import type { Config } from '../config/env.js';
import type { Store } from '../clickhouse/client.js';
import { hasScheduledSnapshot, saveSnapshot, type ReportSnapshot } from '../clickhouse/tables/report-snapshots.js';
import { newId } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import type { HotState } from '../pipeline/state/types.js';
import { complianceReport, costSavingsReport, DEFAULT_PRICES, executiveReport, toolEffectivenessReport, type Period, type Prices, type ReportContext, type Row } from './reports.js';
import { runPeriodically } from '../lib/periodic.js';

export const REPORT_TYPES = ['executive', 'compliance', 'tool-effectiveness', 'cost-savings'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

export interface ReportParameters {
  framework_id?: number;
  prices?: Prices;
}

/** Any report by name: what the routes and snapshots both run. */
export async function runReport(ctx: ReportContext, type: ReportType, period: Period, parameters: ReportParameters): Promise<{ report: unknown; rows: Row[] }> {
  switch (type) {
    case 'executive':
      return executiveReport(ctx, period);
    case 'compliance':
      return complianceReport(ctx, period, parameters.framework_id);
    case 'tool-effectiveness':
      return toolEffectivenessReport(ctx, period);
    case 'cost-savings':
      return costSavingsReport(ctx, period, parameters.prices ?? DEFAULT_PRICES);
  }
}

export async function takeSnapshot(ctx: ReportContext, type: ReportType, period: Period, parameters: ReportParameters, by: { trigger: ReportSnapshot['trigger']; createdBy: string }): Promise<ReportSnapshot> {
  const { report, rows } = await runReport(ctx, type, period, parameters);
  const snapshot: ReportSnapshot = {
    id: newId(),
    org_id: ctx.orgId,
    type,
    period_start: period.start,
    period_end: period.end,
    parameters: { ...parameters },
    report,
    rows,
    trigger: by.trigger,
    created_by: by.createdBy,
    created_at: new Date().toISOString(),
  };
  await saveSnapshot(ctx.store, snapshot);
  return snapshot;
}

const DAY_MS = 86_400_000;
const CHECK_MS = 3_600_000;

/** Takes each configured report once a UTC day, over the 30 days before; one API process does it (a hot-state mark). */
export function startSnapshotSchedule(parts: { config: Config; store: Store; state: HotState; logger: Logger }): () => void {
  const { config, store, state, logger } = parts;
  const types = config.reports.scheduledSnapshots;
  if (types.length === 0) return () => {};
  const ctx: ReportContext = { store, orgId: config.orgId, scopes: config.graph };
  const check = async () => {
    const dayStart = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS).toISOString();
    for (const type of types) {
      if (!(await state.setIfAbsent(`report-snapshot:${type}:${dayStart}`, '1', 2 * DAY_MS))) continue;
      if (await hasScheduledSnapshot(store, config.orgId, type, dayStart)) continue;
      const end = new Date().toISOString();
      const snapshot = await takeSnapshot(ctx, type, { start: new Date(Date.parse(end) - 30 * DAY_MS).toISOString(), end }, {}, { trigger: 'schedule', createdBy: 'schedule' });
      logger.info({ type, snapshot: snapshot.id }, 'report snapshot taken');
    }
  };
  return runPeriodically(check, { firstAfterMs: 60_000, everyMs: CHECK_MS, onError: (err) => logger.warn({ err }, 'scheduled report snapshot failed') });
}
